// Confidentiality canary: distinctive amounts and memos go through every path, then every
// response body, log line, --verbose output, the state file and the config directory are searched
// byte for byte. They may appear only in `svc balance` and locally decrypted output.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbBytes } from '../sandbox/helpers.js';
import { realClock } from '../../src/clock.js';
import { svcIn } from '../helpers/cli.js';
import { spawnSandbox, type RunResult, type SpawnedSandbox } from '../helpers/run.js';

const CANARY_AMOUNT = '7341.902817';
const CANARY_MEMO = 'canary-memo-Zq81xW';
// Every textual form the amount or memo could leak in.
const FORMS = [
  CANARY_AMOUNT,
  '7341902817', // minor units
  '7341.90', // rounded for display
  '7,341.90',
  (7341902817).toString(16), // hex units
  CANARY_MEMO,
  Buffer.from(CANARY_MEMO).toString('base64').slice(0, 16),
  Buffer.from(CANARY_MEMO).toString('hex'),
];

function leaks(text: string): string[] {
  return FORMS.filter((f) => text.toLowerCase().includes(f.toLowerCase()));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

let configDir: string;
let sandbox: SpawnedSandbox;
let env: Record<string, string>;
let acmeDk: string;
let acmeKey: string;
const outputs: Array<{ what: string; r: RunResult }> = [];

async function svc(args: string[], extra: Record<string, string> = {}, input?: string): Promise<RunResult> {
  // The spawned sandbox settles in real time (50 ms blocks), so --wait polls on the real clock.
  const r = await svcIn(args, { ...env, ...extra }, { clock: realClock, ...(input === undefined ? {} : { input }) });
  outputs.push({ what: `svc ${args.join(' ')}`, r });
  return r;
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-canary-'));
  env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
  const statePath = join(configDir, 'sandbox', 'state.db');
  sandbox = await spawnSandbox(['--verbose', '--json', 'sandbox', 'start', '--port', '0', '--block-time', '50ms', '--state', statePath], env);
  const started = JSON.parse(sandbox.stdout()) as { accounts: Array<{ handle: string; api_key: string; decryption_key: string }> };
  const acme = started.accounts.find((a) => a.handle === '@acme')!;
  acmeDk = acme.decryption_key;
  acmeKey = acme.api_key;
}, 30_000);

async function stopSandbox(): Promise<number | null> {
  return sandbox.stop();
}

afterAll(stopSandbox);

describe('no plaintext amount or memo outside balance and local decryption', () => {
  it('moves canaries through every path, then finds them only where allowed', async () => {
    // Paths that carry the canaries in their request: a confidential send and a standard send.
    expect((await svc(['sandbox', 'fund', '@alice', '40000'])).code).toBe(0);
    const sent = await svc(['--verbose', '--json', 'transfer', 'send', '@acme', CANARY_AMOUNT, '--memo', CANARY_MEMO, '--wait']);
    expect(sent.code, sent.stderr).toBe(0);
    const id = (JSON.parse(sent.stdout) as { transfer_id: string }).transfer_id;
    const std = await svc(['--verbose', '--json', 'transfer', 'send', '@oldwallet', CANARY_AMOUNT, '--memo', CANARY_MEMO, '--no-confidential', '--wait']);
    expect(std.code, std.stderr).toBe(0);
    // The raw create answers, with and without the tool in between.
    // (to an external wallet, so @acme's balance below holds exactly one canary)
    const external = '0x1111111111111111111111111111111111111111';
    expect((await svc(['--verbose', '--json', 'transfer', 'send', external, CANARY_AMOUNT, '--memo', CANARY_MEMO])).code).toBe(0);
    const raw = await svc(['--verbose', 'api', 'POST', '/v1/transfers', '--data', JSON.stringify({ to: external, amount: CANARY_AMOUNT, memo: CANARY_MEMO })]);
    expect(raw.code, raw.stderr).toBe(0);
    // An error path that echoes as much as it can: too much, for a canary memo.
    const tooMuch = await svc(['--verbose', 'transfer', 'send', '@acme', '987654321.902817', '--memo', CANARY_MEMO]);
    expect(tooMuch.code).toBe(6);
    expect(tooMuch.stdout).toBe('');
    expect(tooMuch.stderr).toMatch(/^error: .* \(insufficient_balance, request req_\w+\)$/m);

    // Reads that must not show plaintext: raw responses, JSON without --decrypt, verbose traces.
    for (const args of [
      ['--verbose', 'api', 'GET', '/v1/transfers'],
      ['--verbose', 'api', 'GET', `/v1/transfers/${id}`],
      ['--verbose', 'api', 'GET', '/v1/accounts/me/balances'],
      ['--verbose', '--json', 'transfer', 'ls'],
      ['--verbose', '--json', 'transfer', 'get', id],
      ['--verbose', 'account'],
      ['--json', 'profile', 'ls'],
      ['sandbox', 'key', 'ls'],
    ]) {
      const r = await svc(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    // The recipient's raw view, with its own key.
    expect((await svc(['api', 'GET', `/v1/transfers/${id}`], { SVC_API_KEY: acmeKey })).code).toBe(0);

    const forbidden = outputs.flatMap(({ what, r }) => leaks(r.stdout + r.stderr).map((f) => `${what}: ${f}`));
    expect(forbidden).toEqual([]);

    // Allowed: local decryption (sender and recipient) and the recipient's balance.
    const mine = await svcIn(['transfer', 'get', id], env);
    expect(mine.stdout).toContain(CANARY_AMOUNT);
    expect(mine.stdout).toContain(CANARY_MEMO);
    const theirs = await svcIn(['--json', 'transfer', 'get', id, '--decrypt'], { ...env, SVC_API_KEY: acmeKey, SVC_DECRYPTION_KEY: acmeDk });
    expect(JSON.parse(theirs.stdout)).toMatchObject({ amount: CANARY_AMOUNT, memo: CANARY_MEMO });
    const balance = await svcIn(['balance', '--verify'], { ...env, SVC_API_KEY: acmeKey, SVC_DECRYPTION_KEY: acmeDk });
    expect(balance.code, balance.stderr).toBe(0);
    expect(balance.stdout).toContain(`5${CANARY_AMOUNT}`); // 50000 + the canary

    // The sandbox's own log lines (one per request, with --verbose) never carry bodies.
    expect(sandbox.stderr()).toMatch(/POST \/v1\/transfers 201/);
    expect(leaks(sandbox.stderr())).toEqual([]);
  });

  it('leaves no plaintext in the database or anywhere in the config directory, while it runs and after', async () => {
    const check = () => {
      const files = filesUnder(configDir);
      expect(files.some((f) => f.endsWith('state.db'))).toBe(true);
      expect(dbBytes(join(configDir, 'sandbox', 'state.db'))).toContain('"transfer_id":"tr_'); // the transfers are there
      for (const f of files) expect(leaks(readFileSync(f).toString('latin1')), f).toEqual([]);
    };
    check(); // every change is committed as it happens (the WAL file included)
    expect(await stopSandbox()).toBe(0);
    check();
  });
});
