// `svc mcp` started by a person at a terminal (tmux: stdin is a TTY) says what it is and how to
// stop it, instead of waiting in silence; Ctrl-C ends it with exit 130, as SIGTERM does. Launched
// by a host (stdin a pipe) its stderr says nothing more than before (docs/mcp.md).
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { BIN, startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { machineEnv, runSvc } from '../../helpers/run.js';
import { hasTmux, killAllTmux, startTmux, type TmuxSession } from '../../helpers/tmux.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
  const ok = async (args: string[]) => {
    const r = await t.svc(args);
    if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r;
  };
  await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
  const agentKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
  await new ProfileStore(t.configDir).set('bot', { apiKey: agentKey, baseUrl: t.url });
}, 60_000);
afterAll(async () => {
  await t?.close();
});
afterEach(killAllTmux);

const SERVING = 'mcp: serving profile "bot" (@alice/bot, an agent: send_transfer and the read tools) on stdio\n';

describe.skipIf(!hasTmux())('on a terminal (tmux)', () => {
  function terminal(...args: string[]): Promise<TmuxSession> {
    return startTmux([process.execPath, BIN, 'mcp', ...args], {
      width: 100,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', NO_COLOR: '1', SVC_CONFIG_DIR: t.configDir, SVC_CREDENTIAL_STORE: 'file' },
    });
  }

  it('says that it serves MCP on stdin/stdout, that Ctrl-C stops it, and how a host launches it', async () => {
    const term = await terminal('--profile', 'bot', '--max-total', '200');
    const screen = await term.waitFor('Ctrl-C stops it');
    expect(screen).toContain('mcp: serving profile "bot" (@alice/bot, an agent: send_transfer and the read tools, with a session budget (--max-total)) on stdio\n');
    expect(screen).toMatch(/^mcp: this is an MCP server: it reads MCP messages \(JSON-RPC\) on stdin and answers on stdout, so on a terminal it only waits; Ctrl-C stops it$/m);
    expect(screen).toContain('mcp: an MCP host (an AI agent\'s client) launches it itself, with "command": "svc", "args": ["mcp","--profile","bot","--max-total","200"]');
  }, 30_000);

  it('Ctrl-C ends it with exit 130', async () => {
    const term = await terminal('--profile', 'bot');
    await term.waitFor('mcp: serving profile "bot"');
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    expect(await term.capture()).toMatch(/^mcp: session ended \(interrupted\)$/m);
  }, 30_000);
});

describe('launched by a host (stdin a pipe)', () => {
  const env = () => ({ SVC_CONFIG_DIR: t.configDir });

  it('says nothing more than that it serves, and that the session ended, when the host closes stdin (exit 0)', async () => {
    const r = await runSvc(['mcp', '--profile', 'bot'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${SERVING}mcp: session ended\n`);
  }, 30_000);

  it('SIGTERM ends it with exit 130, as Ctrl-C does', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--profile', 'bot'], { env: { ...machineEnv(), ...env() } as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    const serving = new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      if (stderr.includes('on stdio\n')) resolve();
    }));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await serving;
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toBe(`${SERVING}mcp: session ended (interrupted)\n`);
  }, 30_000);
});
