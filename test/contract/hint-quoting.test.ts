// Every value inside a command svc prints for a person to paste goes through one quoting
// function (src/domain/shell-command.ts): a hostile service answering an id such as
// `tr_1;touch${IFS}/tmp/PWNED;#` must not turn a hint into shell code. The printed commands are
// pasted into a real bash, with `svc` a function that records its arguments; and a scan of the
// source finds any printed `svc …` command that interpolates a value without the quoting tag.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ROOT } from '../helpers/run.js';
import { answeringAccount, startScriptedServer, UNKNOWN_TEST_KEY } from '../helpers/scripted-server.js';
import { hasTool } from '../helpers/tools.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-quoting-'));
  dirs.push(d);
  return d;
};

/** The `svc …` commands of a text (what a person would copy from between the backticks). */
const commandsIn = (text: string) => [...text.matchAll(/`(svc [^`]*)`/g)].map((m) => m[1]!);

/** Runs each command in bash with `svc` a function printing its arguments one per line; returns them per command. */
function pasted(commands: string[], marker: string): string[][] {
  const script = ['svc() { printf "%s\\n" "$@"; printf "%s\\n" "--end--"; }', ...commands].join('\n');
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH, MARK: marker } });
  expect(r.status, r.stderr).toBe(0);
  const runs = r.stdout.split('--end--\n').filter((c) => c !== '');
  return runs.map((c) => c.split('\n').filter((w, i, all) => !(w === '' && i === all.length - 1)));
}

describe.skipIf(!hasTool('bash'))('a hostile id in a printed command stays one word when pasted into bash', () => {
  it('transfer send on a terminal, a held send, and a --json hint after acceptance: no command runs, the id is one argument', async () => {
    const work = tmp();
    const marker = join(work, 'PWNED');
    const hostile = `tr_1;touch\${IFS}${marker};#`;
    const hostileTxn = `txn_1$(touch ${marker})`;
    let transferGets = 0;
    const server = await startScriptedServer(answeringAccount((req) => {
      if (req.method === 'POST' && req.url === '/v1/transfers') {
        return JSON.parse(req.body).amount === '900'
          ? { status: 202, body: { transaction_id: hostileTxn, status: 'pending_approval', expires_at: '2099-01-01T00:00:00Z' } }
          : { status: 201, body: { transfer_id: hostile, status: 'pending', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2030-01-01T00:00:00Z' } };
      }
      if (req.method === 'GET' && req.url.startsWith('/v1/transfers/')) {
        transferGets++;
        return 'reset'; // the wait loses the connection: the error names the transfer and how to follow it
      }
      return { status: 404, body: { error: { code: 'not_found', message: 'no' } } };
    }));
    try {
      const env = { SVC_CONFIG_DIR: join(work, 'config'), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' };
      const tty = await runCli(['transfer', 'send', '@acme', '1'], { env, tty: { stdout: true, stderr: true } });
      expect(tty.code, tty.stderr).toBe(0);
      const held = await runCli(['transfer', 'send', '@acme', '900'], { env });
      expect(held.code).toBe(8);
      const json = await runCli(['--json', 'transfer', 'send', '@acme', '2', '--wait', '--timeout', '2s'], { env });
      expect(json.code).toBe(7);
      expect(transferGets).toBeGreaterThan(0);
      const hint = JSON.parse(json.stderr).error.hint as string;

      const commands = [...commandsIn(tty.stderr), ...commandsIn(held.stderr), ...commandsIn(hint)];
      expect(commands.length).toBe(3);
      const args = pasted(commands, marker);
      expect(existsSync(marker)).toBe(false);
      expect(args).toEqual([
        ['transfer', 'get', hostile, '--wait'],
        ['pending', 'approve', hostileTxn],
        ['transfer', 'get', hostile, '--wait'],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('the source: no printed `svc …` command interpolates a value without the quoting tag', () => {
  it('every `svc …` in a template literal with a ${…} is built with svc`…` (src/domain/shell-command.ts)', () => {
    const src = join(ROOT, 'src');
    const allowed = new Set(['domain/shell-command.ts', 'runtime/hint-command.ts']);
    const found: string[] = [];
    for (const file of readdirSync(src, { recursive: true }).map(String).filter((f) => f.endsWith('.ts'))) {
      if (allowed.has(file)) continue;
      const text = readFileSync(join(src, file), 'utf8');
      // A backtick escaped inside a template literal opening `svc …` that interpolates before it closes.
      for (const m of text.matchAll(/\\`svc (?:(?!\\`)[^`])*?\$\{/g)) {
        found.push(`${relative(ROOT, join(src, file))}:${text.slice(0, m.index).split('\n').length}`);
      }
    }
    expect(found).toEqual([]);
  });
});
