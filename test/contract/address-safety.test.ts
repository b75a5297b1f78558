// 0x address safety end to end: a mixed-case address whose EIP-55 checksum does not match is a
// typo, refused locally (exit 2, invalid_address_checksum) by every command that takes one, before
// any request; the sandbox refuses it too. People see addresses in their EIP-55 form (tables,
// records, receipts); TSV and JSON keep the service's text.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../helpers/scripted-server.js';

/** EIP-55's vector 0x5aAeb6…BeAed with the case of its last letter flipped. */
const GOOD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TYPO = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
/** Another vector, all lower case as a service stores it, and its EIP-55 form. */
const LOWER = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const CHECKSUMMED = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const tmp = () => mkdtempSync(join(tmpdir(), 'svc-eip55-'));

function expectExit(r: { code: number | null; stdout: string; stderr: string }, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

describe('a mistyped 0x address is refused before any request (a recording server proves it)', () => {
  let server: ScriptedServer;
  let env: Record<string, string>;
  let policyFile: string;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ status: 500, body: { error: { code: 'should_not_be_called', message: 'no request expected' } } }));
    const dir = tmp();
    env = { SVC_CONFIG_DIR: dir, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' };
    policyFile = join(dir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify({ daily_limit_usdc: 100, allowed_recipients: ['@acme', TYPO] }));
  });
  afterAll(async () => {
    await server?.close();
  });

  const cases: Array<[string, string[], RegExp]> = [
    ['transfer send <to>', ['transfer', 'send', TYPO, '1'], /^error: recipient "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" does not match its EIP-55 checksum .*: it looks like a typo; copy the address again from its source \(invalid_address_checksum\)$/],
    ['transfer send --dry-run', ['transfer', 'send', TYPO, '1', '--dry-run'], /^error: recipient "0x5aAe\w+" does not match its EIP-55 checksum.*looks like a typo/],
    ['agent policy check --to', ['agent', 'policy', 'check', 'bot', '--to', TYPO, '--amount', '1'], /^error: --to "0x5aAe\w+" does not match its EIP-55 checksum.*looks like a typo/],
    ['agent create --allow', ['agent', 'create', 'bot', '--allow', '@acme', '--allow', TYPO], /^error: invalid policy: allowed_recipients\[1\] "0x5aAe\w+" does not match its EIP-55 checksum.*looks like a typo.* \(--allow\) \(invalid_address_checksum\)$/],
    ['agent create --policy-file', ['agent', 'create', 'bot', '--policy-file', ''], /^error: invalid policy: allowed_recipients\[1\] "0x5aAe\w+" does not match its EIP-55 checksum/],
    ['agent policy set --allow', ['agent', 'policy', 'set', 'bot', '--allow', TYPO], /^error: invalid policy: allowed_recipients\[0\] "0x5aAe\w+" does not match its EIP-55 checksum/],
    ['agent policy set --add-allow', ['agent', 'policy', 'set', 'bot', '--add-allow', TYPO], /^error: --add-allow "0x5aAe\w+" does not match its EIP-55 checksum.*looks like a typo/],
  ];

  it.each(cases)('%s: exit 2, one line naming the field, nothing sent (plain and --json)', async (_name, argv, line) => {
    const args = argv.map((a) => (a === '' ? policyFile : a));
    const plain = await runCli(args, { env });
    expectExit(plain, 2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(plain.stderr.trimEnd()).toMatch(line);
    const json = await runCli(['--json', ...args], { env });
    expectExit(json, 2);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'invalid_address_checksum', message: expect.stringMatching(/EIP-55 checksum.*typo/) } });
    expect(server.requests).toEqual([]);
  });

  it('all lower case, all upper case and a correct checksum pass the check (and reach the service)', async () => {
    for (const to of [GOOD, GOOD.toLowerCase(), `0x${GOOD.slice(2).toUpperCase()}`]) {
      const before = server.requests.length;
      const r = await runCli(['transfer', 'send', to, '1'], { env });
      expect(r.stderr).not.toMatch(/checksum/);
      expect(server.requests.length).toBeGreaterThan(before);
    }
  });
});

describe('the sandbox refuses a mistyped address too, and shows addresses checksummed to people', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function call(method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(t.url + path, {
      method,
      headers: { authorization: `Bearer ${t.keyOf('@alice')}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  it('POST /v1/transfers with a bad checksum: 400 invalid_request naming `to`; a policy pattern: 400 invalid_policy', async () => {
    const sent = await call('POST', '/v1/transfers', { to: TYPO, amount: '1' });
    expect(sent.status).toBe(400);
    expect(sent.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^to does not match its EIP-55 checksum/) });
    const agent = await call('POST', '/v1/accounts/me/agents', { name: 'typo', spend_policy: { allowed_recipients: [TYPO] } });
    expect(agent.status).toBe(400);
    expect(agent.body.error).toMatchObject({ code: 'invalid_policy', field: 'allowed_recipients[0]' });
    // The seeded burn address, as the docs write it, is valid EIP-55.
    expect((await call('POST', '/v1/transfers', { to: '0x000000000000000000000000000000000000dEaD', amount: '1' })).status).toBe(201);
    expect((await call('POST', '/v1/transfers', { to: GOOD, amount: '1' })).status).toBe(201);
  });

  it('transfer send / get / ls: EIP-55 in the table and record; TSV and JSON keep the text as sent', async () => {
    const tty = { stdout: true };
    const sent = await runCli(['transfer', 'send', LOWER, '2.5'], { env: t.env, tty, columns: 200 });
    expectExit(sent, 0);
    expect(sent.stdout).toMatch(new RegExp(`^To\\s+${CHECKSUMMED}$`, 'm'));
    const id = /transfer (tr_\w+)/.exec(sent.stdout)![1]!;

    const got = await runCli(['transfer', 'get', id], { env: t.env, tty, columns: 200 });
    expectExit(got, 0);
    expect(got.stdout).toMatch(new RegExp(`^To\\s+${CHECKSUMMED}$`, 'm'));
    expect(got.stdout).not.toContain(LOWER);

    const table = await runCli(['transfer', 'ls'], { env: t.env, tty, columns: 200 });
    expectExit(table, 0);
    const row = table.stdout.split('\n').find((l) => l.startsWith(id))!;
    expect(row).toContain(CHECKSUMMED);

    const tsv = await t.svc(['transfer', 'ls']);
    expect(tsv.stdout.split('\n').find((l) => l.startsWith(id))!.split('\t')).toContain(LOWER);
    const json = await t.svcJson<Array<{ transfer_id: string; to: string }>>(['transfer', 'ls']);
    expect(json.find((x) => x.transfer_id === id)!.to).toBe(LOWER);
    const record = await t.svc(['transfer', 'get', id]);
    expect(record.stdout).toContain(`to\t${LOWER}\n`);
  });

  it('account, agent create / get, pending ls and the approval receipt: chain addresses and recipients in EIP-55 form', async () => {
    const tty = { stdout: true };
    const { toChecksumAddress } = await import('../../src/domain/eip55.js');
    const me = await t.svcJson<{ public_key: string }>(['account']);
    const account = await runCli(['account'], { env: t.env, tty, columns: 200 });
    expect(account.stdout).toMatch(new RegExp(`^Chain address\\s+${toChecksumAddress(me.public_key)}$`, 'm'));

    const created = await runCli(['agent', 'create', 'payer', '--hitl-threshold', '1'], { env: t.env, tty, columns: 200 });
    expectExit(created, 0);
    const agents = await t.svcJson<Array<{ handle: string; public_key: string }>>(['agent', 'ls']);
    const agent = agents.find((a) => a.handle === '@alice/payer')!;
    expect(created.stdout).toMatch(new RegExp(`^Chain address\\s+${toChecksumAddress(agent.public_key)}$`, 'm'));
    // `agent ls` leaves the chain address to `agent get` on a terminal (issue 25), shown there in EIP-55 form.
    const got = await runCli(['agent', 'get', 'payer'], { env: t.env, tty, columns: 200 });
    expect(got.stdout).toMatch(new RegExp(`^Chain address\\s+${toChecksumAddress(agent.public_key)}$`, 'm'));
    expect((await t.svc(['agent', 'ls'])).stdout).toContain(agent.public_key); // TSV: as the service gives it

    // A held transfer to a lower-case address: the approver sees it checksummed.
    const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/payer'])).stdout.trim();
    expectExit(await t.svc(['sandbox', 'fund', '@alice/payer', '10']), 0);
    expectExit(await t.svc(['transfer', 'send', LOWER, '5'], { env: { SVC_API_KEY: key } }), 8);
    const pending = await runCli(['pending', 'ls'], { env: t.env, tty, columns: 200 });
    expectExit(pending, 0);
    expect(pending.stdout).toContain(CHECKSUMMED);
    expect((await t.svc(['pending', 'ls'])).stdout).toContain(LOWER);
    const queue = await t.svcJson<Array<{ transaction_id: string; to: string }>>(['pending', 'ls']);
    expect(queue[0]!.to).toBe(LOWER);
    const approved = await t.svc(['pending', 'approve', queue[0]!.transaction_id]);
    expectExit(approved, 0);
    expect(approved.stderr).toContain(`to ${CHECKSUMMED}`);
  });

  it('sandbox reset on a terminal: seeded addresses in EIP-55 form', async () => {
    const { toChecksumAddress } = await import('../../src/domain/eip55.js');
    const r = await runCli(['sandbox', 'reset', '--yes'], { env: t.env, tty: { stdout: true }, columns: 200 });
    expectExit(r, 0);
    const alice = r.stdout.split('\n').find((l) => l.startsWith('@alice'))!;
    const address = /0x[0-9a-fA-F]{40}/.exec(alice)![0];
    // The profile follows @alice's new key: the service's text of the same address.
    const me = await t.svcJson<{ public_key: string }>(['account']);
    expect(address.toLowerCase()).toBe(me.public_key.toLowerCase());
    expect(address).toBe(toChecksumAddress(me.public_key));
  });
});
