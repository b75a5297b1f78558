// svc in a real terminal (tmux, 120x40, TERM=xterm-256color): hidden key entry, tables and
// badges on a TTY, confirmation prompts that default to No, and the 422 "retry as a standard
// transfer" question. The profile tests use only a private SVC_CONFIG_DIR; the transfer tests
// use the sandbox, or a local fake service for a live key (the sandbox refuses live keys).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { answeringAccount, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { loopbackCaFile } from '../helpers/tls.js';
import { hasTmux, killAllTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/svc.js');
const TEST_KEY = 'svc_test_Tt9kQ2mZx7LpV4nR8sW1yB3c';
const LIVE_KEY = 'svc_live_Lk4mN8pQ2rS6tU0vW3xY7zA1';

let home = '';
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-tty-home-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});
// Every tmux server is killed after each test, passed or failed.
afterEach(killAllTmux);

/** A fresh private config directory, removed after the file's tests. */
const configDirs: string[] = [];
function newConfigDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tty-'));
  configDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of configDirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Runs svc in a new terminal. Colour stays on (no NO_COLOR); CI is not set, so prompts are allowed.
 * It trusts the certificate of https scripted servers (a live key's fake service serves https).
 */
function svcInTerminal(args: string[], configDir: string): Promise<TmuxSession> {
  return startTmux([process.execPath, BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SVC_CONFIG_DIR: configDir, TERM: 'xterm-256color', NODE_EXTRA_CA_CERTS: loopbackCaFile() },
    cwd: home,
  });
}

describe.skipIf(!hasTmux())('profiles on a terminal', () => {
  it('profile add reads the key from a hidden prompt (masked with *) and ls shows a table with badge and masked key', async () => {
    const configDir = newConfigDir();
    // No service behind the default base URL here: save without checking the key (--no-verify).
    const add = await svcInTerminal(['profile', 'add', 'work', '--no-verify'], configDir);
    await add.waitFor('API key');
    await add.sendText(TEST_KEY);
    const typed = await add.waitFor('*'.repeat(TEST_KEY.length));
    expect(typed).not.toContain(TEST_KEY);
    expect(typed).not.toContain(TEST_KEY.slice('svc_test_'.length, -4)); // no part of the secret
    await add.sendKeys('Enter');
    // The optional decryption key is asked next (hidden too): Enter skips it.
    if (/Decryption key/i.test(await add.waitFor(/Decryption key|saved|error/i))) await add.sendKeys('Enter');
    expect(await add.waitForExit()).toBe(0);
    const added = await add.capture();
    expect(added).toContain('profile "work" saved (key not checked: --no-verify)');
    expect(added).toContain(`svc_test_****${TEST_KEY.slice(-4)}`);
    expect(added).toMatch(/TEST/);
    expect(added).not.toContain(TEST_KEY);
    expect(new ProfileStore(configDir).get('work')?.apiKey).toBe(TEST_KEY);

    const ls = await svcInTerminal(['profile', 'ls'], configDir);
    expect(await ls.waitForExit()).toBe(0);
    const table = await ls.capture();
    const lines = table.split('\n');
    const header = lines.findIndex((l) => /NAME\s+ENV\s+API KEY\s+BASE URL/.test(l));
    expect(header, table).toBeGreaterThanOrEqual(0);
    const row = lines[header + 1]!;
    expect(row).toMatch(/^\*\s+work\s+TEST\s+svc_test_\*{4}\w{4}\s+http:\/\/127\.0\.0\.1:46630/);
    expect(row).toContain(`svc_test_****${TEST_KEY.slice(-4)}`);
    expect(table).not.toContain(TEST_KEY);
  }, 60_000);

  it('profile rm asks for confirmation: No (the default) changes nothing and exits 1, Yes removes it', async () => {
    const configDir = newConfigDir();
    new ProfileStore(configDir).set('work', { apiKey: TEST_KEY, baseUrl: 'http://127.0.0.1:46630' });

    const no = await svcInTerminal(['profile', 'rm', 'work'], configDir);
    const question = await no.waitFor(/Remove profile "work".*\(y\/N\)/);
    expect(question).not.toContain(TEST_KEY);
    await no.sendText('n');
    await no.sendKeys('Enter');
    expect(await no.waitForExit()).toBe(1);
    expect(await no.capture()).toMatch(/^Cancelled; nothing was changed\.$/m);
    expect(new ProfileStore(configDir).get('work')?.apiKey).toBe(TEST_KEY);

    // Enter alone takes the default, which is No.
    const enter = await svcInTerminal(['profile', 'rm', 'work'], configDir);
    await enter.waitFor(/\(y\/N\)/);
    await enter.sendKeys('Enter');
    expect(await enter.waitForExit()).toBe(1);
    expect(await enter.capture()).toMatch(/^Cancelled; nothing was changed\.$/m);
    expect(new ProfileStore(configDir).get('work')).toBeDefined();

    const yes = await svcInTerminal(['profile', 'rm', 'work'], configDir);
    await yes.waitFor(/\(y\/N\)/);
    await yes.sendText('y');
    await yes.sendKeys('Enter');
    expect(await yes.waitForExit()).toBe(0);
    expect(await yes.capture()).toContain('removed profile "work"');
    expect(new ProfileStore(configDir).get('work')).toBeUndefined();
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// Transfers: the sandbox (loaded lazily, so the profile tests above never need it).

describe.skipIf(!hasTmux())('transfer send on a terminal, against the sandbox', () => {
  type E2e = typeof import('../helpers/e2e.js');
  let t: Awaited<ReturnType<E2e['startTestSandbox']>> | undefined;
  beforeAll(async () => {
    const { startTestSandbox } = (await import('../helpers/e2e.js')) as E2e;
    t = await startTestSandbox();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function transfersTo(handle: string): Promise<Array<{ transfer_id: string; to: string; confidential?: boolean }>> {
    const list = await t!.svcJson<Array<{ transfer_id: string; to: string; confidential?: boolean }>>(['transfer', 'ls', '--all']);
    return list.filter((x) => x.to === handle);
  }

  it('a recipient that is not confidential-ready: asks to retry as a standard (public) transfer; No sends nothing', async () => {
    const s = await svcInTerminal(['transfer', 'send', '@oldwallet', '5'], t!.configDir);
    const screen = await s.waitFor(/standard transfer.*\(y\/N\)/i, 20_000);
    expect(screen).toMatch(/public/i);
    await s.sendText('n');
    await s.sendKeys('Enter');
    const code = await s.waitForExit(20_000);
    expect(code).not.toBe(0);
    expect(await transfersTo('@oldwallet')).toEqual([]);
  }, 60_000);

  it('… and Yes sends it as a standard transfer (its id is shown)', async () => {
    const s = await svcInTerminal(['transfer', 'send', '@oldwallet', '5'], t!.configDir);
    const screen = await s.waitFor(/standard transfer.*\(y\/N\)/i, 20_000);
    expect(screen).toMatch(/public/i);
    await s.sendText('y');
    await s.sendKeys('Enter');
    expect(await s.waitForExit(20_000)).toBe(0);
    const done = await s.capture();
    const id = /\btr_[A-Za-z0-9]+/.exec(done)?.[0];
    expect(id, done).toBeDefined();
    const sent = await transfersTo('@oldwallet');
    expect(sent.map((x) => x.transfer_id)).toEqual([id]);
    expect(sent[0]!.confidential).toBe(false);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// A live key: the sandbox refuses live keys, so a local fake service records what arrives.

/** A pretend live service (test/helpers/scripted-server.ts): accepts a transfer, records every request. */
function startRecorder(): Promise<ScriptedServer> {
  return startScriptedServer(answeringAccount((req) => {
    if (req.method === 'POST' && req.url === '/v1/transfers') {
      const sent = JSON.parse(req.body) as { to: string; confidential?: boolean };
      return {
        status: 201,
        body: { transfer_id: 'tr_fakeLive0000000000000001', status: 'pending', to: sent.to, confidential: sent.confidential ?? true, tx_hash: null, created_at: new Date().toISOString() },
      };
    }
    return { status: 404, body: { error: { code: 'not_found', message: 'not here', request_id: 'req_fake' } } };
  }), { tls: true }); // a live key goes over https only
}

describe.skipIf(!hasTmux())('transfer send with a live key, on a terminal', () => {
  let fake: ScriptedServer;
  let configDir = '';
  beforeAll(async () => {
    fake = await startRecorder();
    configDir = newConfigDir();
    new ProfileStore(configDir).set('prod', { apiKey: LIVE_KEY, baseUrl: fake.url }, { makeCurrent: true });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('asks for confirmation naming LIVE; No (the default) sends nothing and exits 1', async () => {
    fake.requests.length = 0;
    const s = await svcInTerminal(['transfer', 'send', '@bob', '1'], configDir);
    const question = await s.waitFor(/LIVE.*\(y\/N\)/, 20_000);
    expect(question).toContain('@bob');
    expect(question).not.toContain(LIVE_KEY);
    await s.sendText('n');
    await s.sendKeys('Enter');
    expect(await s.waitForExit(20_000)).toBe(1);
    const screen = await s.capture();
    expect(screen).toMatch(/^Cancelled; nothing was sent\.$/m);
    expect(screen).not.toMatch(/^error: /m); // answering No is not an error report
    expect(fake.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(fake.requests.filter((r) => r.url.startsWith('/v1/transfers'))).toEqual([]);
  }, 60_000);

  it('with --json, No is the cancelled error object (exit 1), and Ctrl-C at the prompt is interrupted (exit 130, both modes)', async () => {
    fake.requests.length = 0;
    const no = await svcInTerminal(['--json', 'transfer', 'send', '@bob', '1'], configDir);
    await no.waitFor(/LIVE.*\(y\/N\)/, 20_000);
    await no.sendText('n');
    await no.sendKeys('Enter');
    expect(await no.waitForExit(20_000)).toBe(1);
    expect(await no.capture()).toMatch(/^\{"error":\{"code":"cancelled","message":"Cancelled; nothing was sent\."\}\}$/m);
    for (const flags of [[], ['--json']]) {
      const s = await svcInTerminal([...flags, 'transfer', 'send', '@bob', '1'], configDir);
      await s.waitFor(/LIVE.*\(y\/N\)/, 20_000);
      await s.sendKeys('C-c');
      expect(await s.waitForExit(20_000)).toBe(130);
      const screen = await s.capture();
      expect(screen).toMatch(flags.length ? /^\{"error":\{"code":"interrupted","message":"interrupted"\}\}$/m : /^error: interrupted \(interrupted\)$/m);
    }
    expect(fake.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  }, 60_000);

  it('Yes sends exactly one POST, with an idempotency key', async () => {
    fake.requests.length = 0;
    const s = await svcInTerminal(['transfer', 'send', '@bob', '1'], configDir);
    await s.waitFor(/LIVE.*\(y\/N\)/, 20_000);
    await s.sendText('y');
    await s.sendKeys('Enter');
    expect(await s.waitForExit(20_000)).toBe(0);
    expect(await s.capture()).toContain('tr_fakeLive0000000000000001');
    const posts = fake.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.url).toBe('/v1/transfers');
    expect(posts[0]!.headers['idempotency-key']).toBeTruthy();
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ to: '@bob', amount: '1', confidential: true });
  }, 60_000);
});
