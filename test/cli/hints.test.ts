// Receipts and hints you can run (issue 25): `transfer send` restates what it sent; every hint's
// command carries the --profile / --base-url that chose this run's target, quoted for a shell,
// with and without --json; a revoked key's hint says it was revoked; the commonest mistakes get
// the next step (exit 2, code `usage` or the field's own, nothing sent); the service's
// API words get a hint in the tool's words. End to end against an in-process sandbox.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { runCli } from '../helpers/cli.js';

const lines = (s: string) => s.split('\n').filter(Boolean);
const jsonError = (stderr: string) => (JSON.parse(stderr) as { error: Record<string, unknown> }).error;

describe('receipts and hints', () => {
  let t: TestSandbox;
  /** Transfer ids @alice can see: a usage error must not change them. */
  const transferIds = async () => (await t.svcJson<{ transfer_id: string }[]>(['transfer', 'ls', '--limit', '100'])).map((x) => x.transfer_id).sort();

  beforeAll(async () => {
    t = await startTestSandbox();
    // Two more profiles for @alice with names a shell must quote.
    const store = new ProfileStore(t.configDir);
    const alice = t.sandbox.seeded.find((a) => a.handle === '@alice')!;
    for (const name of ['my work', "it's"]) {
      await store.set(name, { apiKey: t.keyOf('@alice'), baseUrl: t.url, sandboxAdminToken: t.sandbox.adminToken, ...(alice.decryptionKey ? { decryptionKey: alice.decryptionKey } : {}) }, { makeCurrent: false });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('the receipt of transfer send', () => {
    it('on a terminal restates the amount and memo as typed; piped and --json output are unchanged', async () => {
      const r = await runCli(['transfer', 'send', '@acme', '12.508163', '--memo', 'rent for November'], { env: t.env, tty: { stdout: true } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Amount +12\.508163 USDG$/m);
      expect(r.stdout).toMatch(/^Memo +rent for November$/m);
      expect(r.stdout).toMatch(/^Transfer ID +tr_\w+$/m);
      // A script reads the service's fields: no typed amount in TSV or JSON (docs/json.md).
      const piped = await t.svc(['transfer', 'send', '@acme', '12.508163', '--memo', 'rent for November']);
      expect(piped.code).toBe(0);
      expect(piped.stdout).not.toMatch(/12\.508163|12508163|rent for November/);
      const json = await t.svc(['--json', 'transfer', 'send', '@acme', '12.508163', '--memo', 'rent for November']);
      expect(json.code).toBe(0);
      expect(json.stdout).not.toMatch(/12\.508163|12508163|rent for November/);
      // The receipt is a screen only: nothing in the config dir (journals, state) holds them.
      for (const file of filesUnder(t.configDir)) expect(readFileSync(file, 'utf8'), file).not.toMatch(/12\.508163|12508163|rent for November/);
    });
  });

  describe('hints carry the target of the run', () => {
    it('a refused send: `svc balance` with the --profile in use, quoted for a shell, with and without --json', async () => {
      const r = await t.svc(['--profile', 'my work', 'transfer', 'send', '@acme', '1000000']);
      expect(r.code).toBe(6);
      expect(lines(r.stderr)[1]).toBe("hint: see what the account holds with `svc --profile 'my work' balance`; add test funds with `svc --profile 'my work' sandbox fund @alice <amount>`");
      const j = await t.svc(['--json', '-p', "it's", 'transfer', 'send', '@acme', '1000000']);
      expect(j.code).toBe(6);
      expect(jsonError(j.stderr).hint).toBe("see what the account holds with `svc --profile 'it'\\''s' balance`; add test funds with `svc --profile 'it'\\''s' sandbox fund @alice <amount>`");
      // As typed in a shell, the quoted name is the profile's: the hint's command works.
      const balance = await t.svc(['--profile', "it's", 'balance']);
      expect(balance.code, balance.stderr).toBe(0);
      // Without a --profile, the hint is as before (the default profile, or SVC_PROFILE, still applies).
      const plain = await t.svc(['transfer', 'send', '@acme', '1000000']);
      expect(lines(plain.stderr)[1]).toMatch(/^hint: see what the account holds with `svc balance`;/);
    });

    it('a wait that ran out: `svc transfer get <id> --wait` with the --profile and --base-url in use', async () => {
      const sent = await t.svcJson<{ transfer_id: string }>(['transfer', 'send', '@acme', '1']);
      const r = await t.svc(['--profile', 'my work', '--base-url', t.url, 'transfer', 'get', sent.transfer_id, '--wait', '--timeout-wait', '1s']);
      expect(r.code).toBe(7);
      expect(lines(r.stderr).at(-1)).toBe(`hint: it may still settle; follow it with \`svc --profile 'my work' --base-url ${t.url} transfer get ${sent.transfer_id} --wait\``);
      // The line a send prints on a terminal under a pending transfer: the same command.
      const s = await runCli(['--profile', 'my work', 'transfer', 'send', '@acme', '1'], { env: t.env, tty: { stdout: true } });
      expect(s.code, s.stderr).toBe(0);
      expect(s.stderr).toMatch(/^it settles after the next block; follow it with `svc --profile 'my work' transfer get tr_\w+ --wait`$/m);
    });

    it("a revoked key's hint says it was revoked, not that the sandbox does not know it", async () => {
      const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice', '--name', 'to-revoke'])).stdout.trim();
      const listed = await t.svcJson<{ key_id: string; name: string }[]>(['sandbox', 'key', 'ls']);
      const id = listed.find((k) => k.name === 'to-revoke')!.key_id;
      expect((await t.svc(['--yes', 'sandbox', 'key', 'revoke', id])).code).toBe(0);
      const r = await t.svc(['account'], { env: { SVC_API_KEY: key } });
      expect(r.code).toBe(3);
      expect(lines(r.stderr)[0]).toMatch(/^error: this API key has been revoked \(unauthorized/);
      expect(lines(r.stderr)[1]).toMatch(/^hint: this key was revoked and stays so: save a working one with `svc profile add <name>`/);
      expect(r.stderr).not.toContain('does not know');
    });
  });

  describe('the commonest mistakes get the next step; nothing is sent', () => {
    let before: string[];
    beforeAll(async () => {
      before = await transferIds();
    });
    afterAll(async () => {
      expect(await transferIds()).toEqual(before);
    });

    it('`transfer send @acme --amount 1`: the amount is positional, the usage line', async () => {
      const r = await t.svc(['transfer', 'send', '@acme', '--amount', '1']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toEqual([
        "error: unknown option '--amount': <amount> is an argument, given without a flag (usage)",
        'hint: usage: `svc transfer send [options] <to> <amount>`',
      ]);
      const j = await t.svc(['--json', 'transfer', 'send', '@acme', '--amount', '1']);
      expect(jsonError(j.stderr)).toEqual({ code: 'usage', message: "unknown option '--amount': <amount> is an argument, given without a flag", hint: 'usage: `svc transfer send [options] <to> <amount>`' });
    });

    it('`transfer send @acme 1 USDC`: the asset is an option, `--asset USDC`; the amount is not echoed', async () => {
      const r = await t.svc(['transfer', 'send', '@acme', '7.25', 'usdc']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toEqual([
        "error: too many arguments for 'send': it takes 2 (<to> <amount>), got 3 (usage)",
        'hint: the asset is an option: `--asset USDC` (usage: `svc transfer send [options] <to> <amount>`)',
      ]);
      // Another extra word (it may be an amount) is never echoed: the usage line only.
      const other = await t.svc(['transfer', 'send', '@acme', '7.251839', '8.503627']);
      expect(other.code).toBe(2);
      expect(lines(other.stderr)[1]).toBe('hint: usage: `svc transfer send [options] <to> <amount>`');
      expect(other.stderr).not.toMatch(/7\.251839|8\.503627/);
    });

    it('`transfer send acme 1`: did you mean `@acme`?', async () => {
      const r = await t.svc(['transfer', 'send', 'acme', '1']);
      expect(r.code).toBe(2);
      expect(lines(r.stderr)).toEqual([
        'error: recipient "acme" must be an @handle or a 0x address of 40 hex digits (invalid_recipient)',
        'hint: a handle starts with @: did you mean `@acme`?',
      ]);
    });

    it('`--ammount`: did you mean `--amount`? (even where a required option is checked first)', async () => {
      const r = await t.svc(['agent', 'policy', 'check', '@alice/bot', '--to', '@acme', '--ammount', '1']);
      expect(r.code).toBe(2);
      expect(lines(r.stderr)).toEqual(["error: unknown option '--ammount' (usage)", 'hint: did you mean `--amount`?']);
    });

    it('`pending approve <unknown>`: `svc pending ls` lists the ids (with the --profile in use)', async () => {
      const r = await t.svc(['-p', 'my work', 'pending', 'approve', 'txn_doesnotexist']);
      expect(r.code).toBe(4);
      expect(lines(r.stderr)[0]).toMatch(/\(transaction_not_found, request req_\w+\)$/);
      expect(lines(r.stderr)[1]).toBe("hint: `svc --profile 'my work' pending ls` lists the transactions waiting for your decision");
    });

    it('the service\'s API words (`"confidential": false`) get a hint in the tool\'s: `--no-confidential`', async () => {
      const to = '0x2222222222222222222222222222222222222222'; // a sandbox wallet that takes standard transfers only
      const r = await t.svc(['transfer', 'send', to, '3']);
      expect(r.code).toBe(1);
      expect(lines(r.stderr)[0]).toMatch(/retry with "confidential": false .*\(recipient_not_confidential_ready/);
      expect(lines(r.stderr)[1]).toBe(`hint: the recipient's wallet takes standard transfers only; to send one (its amount becomes public on chain): \`svc transfer send ${to} <amount> --no-confidential\``);
      // Wherever the answer comes from: `svc api` gets the same hint.
      const api = await t.svc(['api', 'POST', '/v1/transfers', '--data', JSON.stringify({ to, amount: '3', asset: 'USDG' })]);
      expect(api.code).toBe(1);
      expect(lines(api.stderr)[1]).toMatch(/^hint: the recipient's wallet takes standard transfers only; .*`svc transfer send <recipient> <amount> --no-confidential`$/);
    });
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
