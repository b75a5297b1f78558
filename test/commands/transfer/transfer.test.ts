// `svc transfer send|get|ls` end to end against the sandbox: the three output modes (table on
// a terminal, TSV when piped, --json), --wait while the test moves the sandbox clock, the
// idempotency key, pagination with --all, and the 422 prompt on a terminal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { runCli, svcIn } from '../../helpers/cli.js';
import { answeringAccount, startScriptedServer, UNKNOWN_TEST_KEY, type RecordedRequest } from '../../helpers/scripted-server.js';
import { HAS_SCRIPT, spawnInTty, spawnSvc, stripAnsi } from '../../helpers/run.js';
import { scriptedPrompter } from '../../helpers/prompter.js';

interface Transfer {
  transfer_id: string;
  status: string;
  to: string;
  from?: string;
  confidential?: boolean;
  tx_hash?: string | null;
  created_at?: string;
  confirmed_at?: string | null;
  [k: string]: unknown;
}

const BLOCK = 60_000;
// A private, empty config directory for runs against fake services (key and URL from the env).
const EMPTY_CONFIG = mkdtempSync(join(tmpdir(), 'svc-e2e-transfer-'));
afterAll(() => rmSync(EMPTY_CONFIG, { recursive: true, force: true }));
const TSV_HEADER = 'transfer_id\tstatus\tto\tfrom\tasset\tamount\tconfidential\tcreated_at\ttx_hash';
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Parses `key<TAB>value` lines of a record printed as TSV. */
function tsvRecord(stdout: string): Record<string, string> {
  const rec: Record<string, string> = {};
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [k, ...rest] = line.split('\t');
    expect(rest).toHaveLength(1);
    rec[k!] = rest[0]!;
  }
  return rec;
}

/** No key named `amount` anywhere in a JSON value (amounts are never part of the output unless decrypted with --decrypt). */
function expectNoAmountField(v: unknown): void {
  if (Array.isArray(v)) return v.forEach(expectNoAmountField);
  if (v && typeof v === 'object') {
    expect(Object.keys(v)).not.toContain('amount');
    Object.values(v).forEach(expectNoAmountField);
  }
}

describe('transfer send / get / ls output modes', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('send, piped: TSV key/value lines on stdout, nothing on stderr', async () => {
    const r = await t.svc(['transfer', 'send', '@acme', '3.141592', '--memo', 'lunch']);
    expect(r.code, r.stderr).toBe(0);
    const rec = tsvRecord(r.stdout);
    expect(Object.keys(rec)).toEqual(expect.arrayContaining(['transfer_id', 'status', 'to', 'confidential', 'tx_hash', 'created_at']));
    expect(rec.status).toBe('pending');
    expect(rec.to).toBe('@acme');
    expect(rec.confidential).toBe('true');
    expect(rec.tx_hash).toMatch(/^0x[0-9a-f]+$/i);
    // A successful send says nothing on stderr (the idempotency key is part of --json output).
    expect(r.stderr).toBe('');
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toContain('3.141592');
      expect(out).not.toContain('lunch');
    }
  });

  it('send --json: exactly one JSON document, the server transfer and its idempotency key, no amount', async () => {
    const r = await t.svc(['--json', 'transfer', 'send', '@acme', '2.718281', '--asset', 'usdc']);
    expect(r.code, r.stderr).toBe(0);
    const tr = JSON.parse(r.stdout) as Transfer;
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(tr.idempotency_key).toMatch(new RegExp(`^${UUID_RE.source}$`));
    const given = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1', '--idempotency-key', 'given-key-1']);
    expect(given.idempotency_key).toBe('given-key-1');
    expect(tr.transfer_id).toMatch(/\S/);
    expect(tr.status).toBe('pending');
    expect(tr.to).toBe('@acme');
    expect(tr.confidential).toBe(true);
    expectNoAmountField(tr);
    expect(r.stdout).not.toContain('2.718281');
    // Human-mode notes stay off in --json mode.
    expect(r.stderr).toBe('');
    const got = await t.svcJson<Transfer>(['transfer', 'get', tr.transfer_id]);
    if (got.asset !== undefined) expect(got.asset).toBe('USDC');
  });

  it('send to a 0x address', async () => {
    const tr = await t.svcJson<Transfer>(['transfer', 'send', '0x1111111111111111111111111111111111111111', '1']);
    expect(tr.status).toBe('pending');
    expect(tr.to.toLowerCase()).toBe('0x1111111111111111111111111111111111111111');
  });

  it('get: TSV and --json show the same transfer, with its sender', async () => {
    const sent = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    const tsv = await t.svc(['transfer', 'get', sent.transfer_id]);
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stderr).toBe('');
    const rec = tsvRecord(tsv.stdout);
    expect(rec.transfer_id).toBe(sent.transfer_id);
    expect(rec.status).toBe('pending');
    expect(rec.from).toBe('@alice');
    expect(rec.to).toBe('@acme');
    const json = await t.svc(['--json', 'transfer', 'get', sent.transfer_id]);
    const got = JSON.parse(json.stdout) as Transfer;
    expect(got).toMatchObject({ transfer_id: sent.transfer_id, status: 'pending', from: '@alice', to: '@acme', tx_hash: sent.tx_hash });
    expectNoAmountField(got);
  });

  it('ls, piped: a TSV header and one tab-separated row per transfer, newest first', async () => {
    const a = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    const b = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    const r = await t.svc(['transfer', 'ls', '--limit', '100']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows[0]).toBe(TSV_HEADER);
    for (const row of rows.slice(1)) expect(row.split('\t')).toHaveLength(9);
    const ids = rows.slice(1).map((row) => row.split('\t')[0]);
    expect(ids.indexOf(b.transfer_id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(b.transfer_id)).toBeLessThan(ids.indexOf(a.transfer_id));
    const row = rows.find((x) => x.startsWith(`${b.transfer_id}\t`))!.split('\t');
    expect(row[1]).toBe('pending');
    expect(row[2]).toBe('@acme');
    expect(row[4]).toBe('USDG');
    expect(row[5]).toBe('1.00'); // decrypted locally with the sandbox profile's decryption key
    expect(row[6]).toBe('true');
    expect(row[8]).toBe(b.tx_hash); // full hash when piped
  });

  it('ls --json: one JSON array of server transfers', async () => {
    const r = await t.svc(['--json', 'transfer', 'ls', '--limit', '3']);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as Transfer[];
    expect(Array.isArray(list)).toBe(true);
    expect(list).toHaveLength(3);
    for (const x of list) expect(x.transfer_id).toMatch(/\S/);
    expectNoAmountField(list);
  });

  it('ls filters: --status, --since/--until; empty results are [] and exit 0', async () => {
    const pending = await t.svcJson<Transfer[]>(['transfer', 'ls', '--status', 'pending', '--limit', '100']);
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((x) => x.status === 'pending')).toBe(true);
    expect(await t.svcJson<Transfer[]>(['transfer', 'ls', '--status', 'confirmed'])).toEqual([]);
    expect(await t.svcJson<Transfer[]>(['transfer', 'ls', '--since', '2999-01-01'])).toEqual([]);
    expect(await t.svcJson<Transfer[]>(['transfer', 'ls', '--until', '2000-01-01T00:00:00+02:00'])).toEqual([]);
    const all = await t.svcJson<Transfer[]>(['transfer', 'ls', '--since', '2000-01-01', '--until', '2999-12-31T23:59:59Z', '--limit', '100']);
    expect(all.length).toBeGreaterThan(0);
    const empty = await t.svc(['transfer', 'ls', '--status', 'failed']);
    expect(empty.code).toBe(0);
    // Piped: the TSV header alone, so scripts can rely on the first line.
    expect(empty.stdout).toBe(`${TSV_HEADER}\n`);
  });

  it('ls sends the normalised query (status, from, to, limit, offset)', async () => {
    const server = await startScriptedServer(() => ({ status: 200, body: { transfers: [], limit: 5, offset: 2, has_more: false } }));
    try {
      const r = await svcIn(['transfer', 'ls', '--status', 'Confirmed', '--since', '2024-05-01', '--until', '2024-05-02T10:00:00+02:00', '--limit', '5', '--offset', '2'], {
        SVC_CONFIG_DIR: t.configDir, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url,
      });
      expect(r.code, r.stderr).toBe(0);
      const q = new URL(server.requests[0]!.url, 'http://x').searchParams;
      expect(Object.fromEntries(q)).toEqual({
        status: 'confirmed', from: '2024-05-01T00:00:00.000Z', to: '2024-05-02T08:00:00.000Z', limit: '5', offset: '2',
      });
    } finally {
      await server.close();
    }
  });

  const badLs: Array<[string[], RegExp]> = [
    [['--status', 'done'], /^error: --status "done" must be one of pending, confirmed, failed \(invalid_argument\)$/],
    [['--limit', '0'], /^error: --limit "0" must be a whole number from 1 to 100 \(invalid_argument\)$/],
    [['--limit', '101'], /^error: --limit "101" must be a whole number from 1 to 100 \(invalid_argument\)$/],
    [['--limit', '2.5'], /^error: --limit "2\.5" must be a whole number.* \(invalid_argument\)$/],
    [['--offset', '-1'], /^error: --offset "-1" must be a whole number from 0 to 9007199254740991 \(invalid_argument\)$/],
    [['--since', 'yesterday'], /^error: --since "yesterday" must be an ISO 8601 date or time.* \(invalid_argument\)$/],
    [['--until', '2024-02-30'], /^error: --until "2024-02-30" must be an ISO 8601 date or time.* \(invalid_argument\)$/],
    [['--since', '2024-05-02', '--until', '2024-05-01'], /^error: --since must not be later than --until \(invalid_argument\)$/],
  ];
  it.each(badLs)('ls %j → exit 2 naming the flag', async (args, message) => {
    const r = await t.svc(['transfer', 'ls', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(message);
  });

  it.skipIf(!HAS_SCRIPT)('on a terminal: a badge and aligned fields for send and get, a table for ls', async () => {
    const send = await spawnInTty(['transfer', 'send', '@acme', '1'], t.env).exited;
    expect(send.code, send.output).toBe(0);
    const out = stripAnsi(send.output);
    const id = /\[TEST\] transfer (\S+)\n/.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(out).toMatch(new RegExp(`^Transfer ID\\s+${id}$`, 'm'));
    expect(out).toMatch(/^Status\s+pending$/m);
    expect(out).toMatch(/^Confidential\s+yes$/m);
    expect(out).toMatch(/follow it with `svc transfer get \S+ --wait`/);

    const get = await spawnInTty(['transfer', 'get', id!], t.env).exited;
    expect(get.code).toBe(0);
    expect(stripAnsi(get.output)).toMatch(/^From\s+@alice$/m);

    // A wide terminal (the pty has no size; $COLUMNS says): every column, values whole.
    const ls = await spawnInTty(['transfer', 'ls', '--limit', '2'], { ...t.env, COLUMNS: '200' }).exited;
    expect(ls.code).toBe(0);
    const table = stripAnsi(ls.output).trimEnd().split('\n');
    expect(table[0]).toMatch(/^ID\s+STATUS\s+TO\s+FROM\s+AMOUNT\s+CONFIDENTIAL\s+CREATED\s+TX HASH$/);
    // CREATED is relative to this machine's clock: a busy machine can take a second between send and ls.
    expect(table[1]).toMatch(new RegExp(`^${id}\\s+pending\\s+@acme\\s+@alice\\s+1\\.00 USDG\\s+yes\\s+(?:now|\\d+s ago)\\s+0x[0-9a-f]{64}$`, 'i'));
    expect(table[3]).toMatch(/more transfers: --offset 2 for the next page, or --all/);
    // At 80 columns the hash goes first, and no line is longer.
    const narrow = await spawnInTty(['transfer', 'ls', '--limit', '2'], { ...t.env, COLUMNS: '80' }).exited;
    const lines = stripAnsi(narrow.output).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TO\s+FROM\s+AMOUNT\s+(CONFIDENTIAL\s+)?CREATED$/);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
  });

  it('422 with someone to ask: the question, then No sends nothing and Yes sends a standard transfer under a new key', async () => {
    const sentToOld = async () => (await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).filter((x) => x.to === '@oldwallet');
    const before = (await sentToOld()).length;
    const ask = (answer: boolean) => {
      const prompter = scriptedPrompter([answer]);
      return { prompter, run: runCli(['--verbose', 'transfer', 'send', '@oldwallet', '1'], { env: t.env, tty: { stdin: true, stdout: true }, prompter }) };
    };

    const no = ask(false);
    const n = await no.run;
    expect(no.prompter.asked).toEqual(['Send it as a standard transfer instead? Its amount will be PUBLIC on chain']);
    expect([n.code, n.stdout]).toEqual([1, '']);
    expect(n.stderr).toMatch(/^! @oldwallet cannot receive confidential transfers\.$/m);
    expect(n.stderr).toMatch(/\(recipient_not_confidential_ready, request req_\w+\)\nhint: nothing was sent; add --no-confidential to send a standard transfer\n$/);
    expect(await sentToOld()).toHaveLength(before);

    const yes = ask(true);
    const y = await yes.run;
    expect(y.code, y.stderr).toBe(0);
    expect(y.stdout).toMatch(/^Confidential\s+no$/m);
    // The second try used a new idempotency key (its body differs from the first).
    const keys = [...y.stderr.matchAll(new RegExp(`> idempotency-key: (${UUID_RE.source})`, 'g'))].map((m) => m[1]);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
    const after = await sentToOld();
    expect(after).toHaveLength(before + 1);
    expect(after[0]!.confidential).toBe(false);
  });

  it.skipIf(!HAS_SCRIPT)('422 on a terminal: asks (default No) whether to send a standard transfer', async () => {
    const before = (await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).filter((x) => x.to === '@oldwallet').length;

    const no = spawnInTty(['transfer', 'send', '@oldwallet', '1'], t.env);
    await no.waitFor(/standard transfer instead\? Its amount will be PUBLIC on chain/);
    no.write('\r'); // Enter: the default, No
    const n = await no.exited;
    expect(n.code).toBe(1);
    expect(stripAnsi(n.output)).toMatch(/hint: nothing was sent; add --no-confidential/);

    // --verbose traces each request, with its Idempotency-Key header.
    const yes = spawnInTty(['--verbose', 'transfer', 'send', '@oldwallet', '1'], t.env);
    await yes.waitFor(/standard transfer instead\?/);
    yes.write('y\r');
    const y = await yes.exited;
    expect(y.code, y.output).toBe(0);
    const out = stripAnsi(y.output);
    expect(out).toMatch(/^Confidential\s+no$/m);
    // The retry used a new idempotency key (the first body was different).
    const keys = [...out.matchAll(new RegExp(`> idempotency-key: (${UUID_RE.source})`, 'g'))].map((m) => m[1]);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);

    const after = (await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).filter((x) => x.to === '@oldwallet');
    expect(after).toHaveLength(before + 1);
    expect(after[0]!.confidential).toBe(false);
  });
});

describe('--wait (the test moves the sandbox clock while the CLI waits)', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('send --wait returns once the transfer is confirmed', async () => {
    const run = spawnSvc(['--verbose', 'transfer', 'send', '@acme', '1', '--wait'], t.env);
    await run.waitFor('stderr', /waiting for transfer \S+ to settle \(up to 2m\)/);
    // --verbose shows each poll: after two of them it is still waiting, the transfer pending.
    await run.waitFor('stderr', /(< 200 GET \S+\/v1\/transfers\/[^\n]*\n[\s\S]*){2}/);
    expect(run.done()).toBe(false);
    await t.sandbox.advance(BLOCK);
    const r = await run.exited;
    expect(r.code, r.stderr).toBe(0);
    const rec = tsvRecord(r.stdout);
    expect(rec.status).toBe('confirmed');
    expect(rec.confirmed_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.stderr).toMatch(new RegExp(`submitted transfer ${rec.transfer_id} \\(pending\\)`));
  });

  it('get --wait --json prints the settled transfer as one document', async () => {
    const sent = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    const run = spawnSvc(['--verbose', '--json', 'transfer', 'get', sent.transfer_id, '--wait'], t.env);
    // --verbose shows each poll; wait for the second one so we know it is polling.
    await run.waitFor('stderr', new RegExp(`(< 200 GET \\S+/v1/transfers/${sent.transfer_id}[^\\n]*\\n[\\s\\S]*){2}`));
    await t.sandbox.advance(BLOCK);
    const r = await run.exited;
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as Transfer;
    expect(got.transfer_id).toBe(sent.transfer_id);
    expect(got.status).toBe('confirmed');
    expect(got.confirmed_at).toBeTruthy();
  });

  it('a transfer that fails (to 0x…dEaD) makes --wait exit 1 with a clear message, nothing on stdout when piped', async () => {
    const run = spawnSvc(['transfer', 'send', '0x000000000000000000000000000000000000dEaD', '1', '--wait'], t.env);
    await run.waitFor('stderr', /waiting for transfer/);
    await t.sandbox.advance(BLOCK);
    const r = await run.exited;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const [, id, key] = /submitted transfer (\S+) \(pending\) under idempotency key (\S+)/.exec(r.stderr) ?? [];
    expect(id).toBeDefined();
    // What was accepted is named: the transfer and its key; a new key is what pays it after all.
    expect(r.stderr).toMatch(new RegExp(`^error: transfer ${id} failed: it did not settle on chain and no funds moved; idempotency key ${key} \\(transfer_failed\\)\nhint: transaction 0x[0-9a-f]+; to pay it after all, send it under a new --idempotency-key\n$`, 'mi'));
    expect((await t.svcJson<Transfer>(['transfer', 'get', id!])).status).toBe('failed');
  });

  it('a failed transfer under --wait --json: nothing on stdout, the JSON error carries the transfer id', async () => {
    const before = new Set((await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).map((x) => x.transfer_id));
    const run = runCli(['--json', 'transfer', 'send', '0x000000000000000000000000000000000000dEaD', '1', '--wait'], { env: t.env });
    // Once the transfer exists, settle the block while the CLI waits.
    let id: string | undefined;
    for (let i = 0; i < 200 && !id; i++) {
      id = (await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).find((x) => !before.has(x.transfer_id))?.transfer_id;
      if (!id) await new Promise((r) => setTimeout(r, 25));
    }
    expect(id).toBeDefined();
    await t.sandbox.advance(BLOCK);
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const err = (JSON.parse(r.stderr) as { error: Record<string, unknown> }).error;
    expect(err).toMatchObject({ code: 'transfer_failed', transfer_id: id, message: `transfer ${id} failed: it did not settle on chain and no funds moved; idempotency key ${err.idempotency_key as string}` });
    expect(err.idempotency_key).toMatch(new RegExp(`^${UUID_RE.source}$`));
  });

  it.skipIf(!HAS_SCRIPT)('a failed transfer under --wait on a terminal: the record is shown, then the error', async () => {
    const run = spawnInTty(['transfer', 'send', '0x000000000000000000000000000000000000dEaD', '1', '--wait'], t.env);
    await run.waitFor(/waiting for transfer/);
    await t.sandbox.advance(BLOCK);
    const r = await run.exited;
    expect(r.code).toBe(1);
    const out = stripAnsi(r.output);
    const id = /\[TEST\] transfer (\S+)\n/.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(out).toMatch(/^Status\s+failed$/m);
    expect(out).toMatch(new RegExp(`^error: transfer ${id} failed: it did not settle on chain and no funds moved; idempotency key ${UUID_RE.source} \\(transfer_failed\\)$`, 'm'));
    expect(out.indexOf('Status')).toBeLessThan(out.indexOf('error: '));
  });

  it('get without --wait reports a failed transfer and exits 0', async () => {
    const sent = await t.svcJson<Transfer>(['transfer', 'send', '0x000000000000000000000000000000000000dEaD', '1']);
    await t.sandbox.advance(BLOCK);
    const r = await t.svc(['transfer', 'get', sent.transfer_id]);
    expect(r.code).toBe(0);
    expect(tsvRecord(r.stdout).status).toBe('failed');
  });

  it('gives up after --timeout-wait with exit 7, the transfer still pending', async () => {
    const sent = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    // The command's own clock: its waits pass at once, and add up to what it waited (the
    // sandbox clock does not move, so the transfer stays pending).
    let now = Date.now();
    let waited = 0;
    const clock = { now: () => now, sleep: async (ms: number) => void ((now += ms), (waited += ms)) };
    const r = await runCli(['transfer', 'get', sent.transfer_id, '--wait', '--timeout-wait', '1s'], { env: t.env, clock });
    expect(r.code).toBe(7);
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(1000 + 2000); // it stopped at the limit (one poll interval past at most)
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: gave up waiting for transfer ${sent.transfer_id} after 1s: it is still pending \\(wait_timeout\\)$`, 'm'));
    expect(r.stderr).toMatch(/^hint: it may still settle/m);
    const j = await runCli(['--json', 'transfer', 'get', sent.transfer_id, '--wait', '--timeout-wait', '1s'], { env: t.env, clock });
    expect(j.code).toBe(7);
    expect(j.stdout).toBe('');
    expect(j.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: 'wait_timeout', transfer_id: sent.transfer_id, hint: expect.stringMatching(/^it may still settle/) } });
  });

  it('--timeout-wait without --wait is a usage error', async () => {
    const r = await t.svc(['transfer', 'get', 'tr_x', '--timeout-wait', '5s']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: --timeout-wait needs --wait (invalid_argument)\n');
  });

  it.skipIf(!HAS_SCRIPT)('shows a spinner on a terminal, and clears it', async () => {
    const sent = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    const run = spawnInTty(['transfer', 'get', sent.transfer_id, '--wait'], t.env);
    // Two different frames: the spinner is animating while the transfer is pending.
    await run.waitFor(/⠋ waiting for transfer/);
    await run.waitFor(/⠙ waiting for transfer/);
    await t.sandbox.advance(BLOCK);
    const r = await run.exited;
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for transfer/);
    expect(r.output).toContain('\u001b[2K'); // the line is cleared
    expect(r.output).toContain('\u001b[?25h'); // the cursor is shown again
    expect(stripAnsi(r.output)).toMatch(/^Status\s+confirmed$/m);
  });

  it('no spinner escape codes when stderr is not a terminal', async () => {
    const sent = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1']);
    await t.sandbox.advance(BLOCK);
    const r = await t.svc(['transfer', 'get', sent.transfer_id, '--wait']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\u001b');
  });
});

describe('idempotency', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the same key replays one transfer: same id twice, one debit', async () => {
    // @alice has 1000 USDG.
    const first = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '400', '--idempotency-key', 'order-0001']);
    const again = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '400', '--idempotency-key', 'order-0001']);
    expect(again.transfer_id).toBe(first.transfer_id);
    expect(again).toEqual(first);
    const listed = await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100']);
    expect(listed.map((x) => x.transfer_id)).toEqual([first.transfer_id]);
    await t.sandbox.advance(BLOCK);
    // One debit of 400 leaves 600: 500 more goes through (two debits would leave 200).
    const second = await t.svc(['transfer', 'send', '@acme', '500']);
    expect(second.code, second.stderr).toBe(0);
    await t.sandbox.advance(BLOCK);
    // And the balance is really enforced: 100 left, 500 more is refused.
    const third = await t.svc(['transfer', 'send', '@acme', '500']);
    expect(third.code).toBe(6);
  });

  it('the same key with another body is refused → exit 5 (by svc itself: its journal knows the key)', async () => {
    const first = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1', '--idempotency-key', 'order-0002']);
    const before = (await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).length;
    const r = await t.svc(['transfer', 'send', '@acme', '2', '--idempotency-key', 'order-0002']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: idempotency key order-0002 was used on \\S+ for another payment \\(transfer ${first.transfer_id}\\); nothing was sent \\(idempotency_key_reused\\)\n`));
    expect(await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100'])).toHaveLength(before);
  });

  it('amounts are sent as canonical decimal strings, so 1.50 and 001.5 replay the same transfer', async () => {
    const a = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1.50', '--idempotency-key', 'order-0003']);
    const b = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '001.5', '--idempotency-key', 'order-0003']);
    expect(b.transfer_id).toBe(a.transfer_id);
  });
});

describe('request body and special answers (fake service)', () => {
  it('POSTs the amount as a decimal string, never a number, with the defaults spelled out', async () => {
    const server = await startScriptedServer(answeringAccount(() => ({ status: 201, body: { transfer_id: 'tr_1', status: 'pending', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2024-01-01T00:00:00Z' } })));
    const posts = () => server.requests.filter((q) => q.method === 'POST');
    try {
      const env = { SVC_CONFIG_DIR: EMPTY_CONFIG, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
      const r = await svcIn(['transfer', 'send', '@ACME', '0.10', '--memo', 'hi'], env);
      expect(r.code, r.stderr).toBe(0);
      const req = posts()[0]!;
      expect(req.method).toBe('POST');
      expect(req.url).toBe('/v1/transfers');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['idempotency-key']).toMatch(UUID_RE);
      expect(req.body).toBe('{"to":"@acme","amount":"0.1","asset":"USDG","confidential":true,"memo":"hi"}');
      const r2 = await svcIn(['transfer', 'send', '0x1111111111111111111111111111111111111111', '12', '--asset', 'USDC', '--no-confidential'], env);
      expect(r2.code, r2.stderr).toBe(0);
      expect(JSON.parse(posts()[1]!.body)).toEqual({
        to: '0x1111111111111111111111111111111111111111', amount: '12', asset: 'USDC', confidential: false,
      });
    } finally {
      await server.close();
    }
  });

  it('202 pending_approval (an agent transfer held for a human) prints the transaction and exits 8', async () => {
    const held = { transaction_id: 'txn_42', status: 'pending_approval', expires_at: '2030-01-01T00:15:00Z' };
    const server = await startScriptedServer(answeringAccount(() => ({ status: 202, body: held })));
    try {
      const env = { SVC_CONFIG_DIR: EMPTY_CONFIG, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
      const r = await svcIn(['transfer', 'send', '@acme', '900'], env);
      expect(r.code).toBe(8);
      expect(tsvRecord(r.stdout)).toEqual({ transaction_id: 'txn_42', status: 'pending_approval', expires_at: '2030-01-01T00:15:00Z' });
      expect(r.stderr).toMatch(/not sent yet: .* until 2030-01-01T00:15:00Z; the account owner can run `svc pending approve txn_42`/);
      const j = await svcIn(['--json', 'transfer', 'send', '@acme', '900'], env);
      expect(j.code).toBe(8);
      expect(j.stderr).toBe('');
      // The held transaction as answered, plus the idempotency key it was sent with.
      expect(JSON.parse(j.stdout)).toEqual({ ...held, idempotency_key: server.requests[2]!.headers['idempotency-key'] });
      // Without --wait a held transaction is not followed; with --wait it is
      // (test/commands/pending/follow.test.ts). The account of a key from the environment is asked
      // once on this machine, then remembered (the second run sends its POST alone).
      expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/accounts/me', 'POST /v1/transfers', 'POST /v1/transfers']);
    } finally {
      await server.close();
    }
  });
});

describe('amounts and memos, decrypted locally', () => {
  it('get/ls show the amount and memo opened with the decryption key; --json adds them only with --decrypt', async () => {
    const { generateViewingKey } = await import('../../../src/crypto/viewing-key.js');
    const { contexts, encryptTo } = await import('../../../src/crypto/ciphertext.js');
    const mine = generateViewingKey('test');
    const other = generateViewingKey('test');
    const account = { account_id: 'acc_me', handle: '@me', type: 'personal', public_key: '0xabc', kyc_status: 'verified' };
    const transfer = (id: string, key: Buffer, memo?: string) => ({
      transfer_id: id, status: 'confirmed', from: '@me', to: '@acme', confidential: true, asset: 'USDG', tx_hash: '0x1',
      created_at: '2024-01-01T00:00:00.000Z', confirmed_at: '2024-01-01T00:00:02.000Z',
      amount_ciphertext: encryptTo(key, '12508163', contexts.transferAmount(id, 'acc_me')),
      ...(memo ? { memo_ciphertext: encryptTo(key, memo, contexts.transferMemo(id, 'acc_me')) } : {}),
    });
    // A memo is written by the other party: its control characters must not reach the terminal.
    const readable = transfer('tr_mine', mine.publicKey, 'rent for may\u001b[2J');
    const sealed = transfer('tr_other', other.publicKey);
    const server = await startScriptedServer((req) => {
      if (req.url === '/v1/accounts/me') return { status: 200, body: account };
      if (req.url === '/v1/transfers/tr_mine') return { status: 200, body: readable };
      return { status: 200, body: { transfers: [readable, sealed], has_more: false } };
    });
    try {
      const env = { SVC_CONFIG_DIR: EMPTY_CONFIG, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, SVC_DECRYPTION_KEY: mine.decryptionKey };
      const get = await svcIn(['transfer', 'get', 'tr_mine'], env);
      expect(get.code, get.stderr).toBe(0);
      // The escape character is shown escaped, visibly, in the TSV cell.
      expect(tsvRecord(get.stdout)).toMatchObject({ amount: '12.508163', memo: 'rent for may\\x1b[2J' });
      expect(get.stdout).not.toContain('\u001b');

      const ls = await svcIn(['transfer', 'ls'], env);
      expect(ls.code, ls.stderr).toBe(0);
      const rows = ls.stdout.trimEnd().split('\n').slice(1).map((r) => r.split('\t'));
      expect(rows.map((r) => [r[0], r[5]])).toEqual([['tr_mine', '12.508163'], ['tr_other', 'encrypted']]);

      const plain = await svcIn(['--json', 'transfer', 'get', 'tr_mine'], env);
      expect(JSON.parse(plain.stdout)).toStrictEqual(readable);
      expect(plain.stdout).not.toMatch(/12\.508163|12508163/);
      expect(plain.stdout).not.toContain('\u001b');
      // --decrypt adds `amount` and `memo` where they open here, and nothing (not null) elsewhere.
      const decrypted = await svcIn(['--json', 'transfer', 'ls', '--decrypt'], env);
      expect(decrypted.code, decrypted.stderr).toBe(0);
      const list = JSON.parse(decrypted.stdout) as Transfer[];
      expect(list).toStrictEqual([{ ...readable, amount: '12.508163', memo: 'rent for may\u001b[2J' }, sealed]);
      expect(decrypted.stdout).not.toContain('\u001b'); // escaped in the JSON text
      const one = await svcIn(['--json', 'transfer', 'get', 'tr_mine', '--decrypt'], env);
      expect(JSON.parse(one.stdout)).toStrictEqual({ ...readable, amount: '12.508163', memo: 'rent for may\u001b[2J' });

      // Without a decryption key: "encrypted", and no account lookup.
      const before = server.requests.length;
      const nokey = await svcIn(['transfer', 'get', 'tr_mine'], { ...env, SVC_DECRYPTION_KEY: undefined });
      expect(tsvRecord(nokey.stdout)).toMatchObject({ amount: 'encrypted', memo: 'encrypted' });
      expect(server.requests.slice(before).map((q) => q.url)).toEqual(['/v1/transfers/tr_mine']);
    } finally {
      await server.close();
    }
  });

  it('against the sandbox: decrypted with the profile key; "encrypted" (and absent from --json) without one', async () => {
    const t = await startTestSandbox();
    try {
      const sent = await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1.5', '--memo', 'lunch']);
      const std = await t.svcJson<Transfer>(['transfer', 'send', '@oldwallet', '2', '--no-confidential']);
      const rec = tsvRecord((await t.svc(['transfer', 'get', sent.transfer_id])).stdout);
      expect([rec.amount, rec.memo]).toEqual(['1.50', 'lunch']);
      expect(tsvRecord((await t.svc(['transfer', 'get', std.transfer_id])).stdout).amount).toBe('2.00');
      const plain = await t.svcJson<Transfer>(['transfer', 'get', sent.transfer_id]);
      expectNoAmountField(plain);
      expect(Object.keys(plain)).not.toContain('memo');
      expect(plain.amount_ciphertext).toMatch(/^[A-Za-z0-9_-]{60,}$/);
      const withFlag = await t.svcJson<Transfer>(['transfer', 'get', sent.transfer_id, '--decrypt']);
      expect([withFlag.amount, withFlag.memo]).toEqual(['1.50', 'lunch']);
      const listed = await t.svcJson<Transfer[]>(['transfer', 'ls', '--decrypt']);
      expect(listed.map((x) => [x.transfer_id, x.amount, x.memo])).toEqual([[std.transfer_id, '2.00', undefined], [sent.transfer_id, '1.50', 'lunch']]);

      // The same account through a profile without a decryption key.
      const add = await t.svc(['profile', 'add', 'nodk', '--key-stdin', '--base-url', t.url], { input: `${t.keyOf('@alice')}\n` });
      expect(add.code, add.stderr).toBe(0);
      expect(tsvRecord((await t.svc(['--profile', 'nodk', 'transfer', 'get', sent.transfer_id])).stdout)).toMatchObject({ amount: 'encrypted', memo: 'encrypted' });
      const none = await t.svcJson<Transfer>(['--profile', 'nodk', 'transfer', 'get', sent.transfer_id, '--decrypt']);
      expect(Object.keys(none)).not.toContain('amount');
      expect(Object.keys(none)).not.toContain('memo');
    } finally {
      await t.close();
    }
  });
});

describe('ls --all pagination', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('follows every page and prints each transfer once, in order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.unshift((await t.svcJson<Transfer>(['transfer', 'send', '@acme', '1'])).transfer_id);
    const json = await t.svc(['--json', 'transfer', 'ls', '--all', '--limit', '3']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as Transfer[]).map((x) => x.transfer_id)).toEqual(ids);
    const tsv = await t.svc(['transfer', 'ls', '--all', '--limit', '2']);
    expect(tsv.code).toBe(0);
    const rows = tsv.stdout.trimEnd().split('\n');
    expect(rows[0]).toBe(TSV_HEADER);
    expect(rows.slice(1).map((r) => r.split('\t')[0])).toEqual(ids);
    // Without --limit, --all uses pages of 100.
    expect((await t.svcJson<Transfer[]>(['transfer', 'ls', '--all'])).map((x) => x.transfer_id)).toEqual(ids);
    // --offset is where --all starts.
    expect((await t.svcJson<Transfer[]>(['transfer', 'ls', '--all', '--limit', '2', '--offset', '5'])).map((x) => x.transfer_id)).toEqual(ids.slice(5));
  });
});

describe('ls --all against a fake service', () => {
  /** A service holding `total` transfers, answering pages in the given shape. */
  function pagedServer(total: number, shape: 'has_more' | 'bare', gate?: (req: RecordedRequest) => Promise<void>) {
    return startScriptedServer(async (req) => {
      const q = new URL(req.url, 'http://x').searchParams;
      const offset = Number(q.get('offset') ?? 0);
      const limit = Number(q.get('limit') ?? 20);
      await gate?.(req);
      const items = [];
      for (let i = offset; i < Math.min(total, offset + limit); i++) {
        items.push({ transfer_id: `tr_${String(i).padStart(6, '0')}`, status: 'confirmed', to: '@acme', confidential: true, tx_hash: `0x${i.toString(16)}`, created_at: '2024-01-01T00:00:00Z' });
      }
      return { status: 200, body: shape === 'bare' ? items : { transfers: items, limit, offset, has_more: offset + limit < total } };
    });
  }
  const envFor = (url: string) => ({ SVC_CONFIG_DIR: EMPTY_CONFIG, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: url });

  it('without has_more, stops at the first short page', async () => {
    const server = await pagedServer(5, 'bare');
    try {
      const r = await svcIn(['--json', 'transfer', 'ls', '--all', '--limit', '2'], envFor(server.url));
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Transfer[]).map((x) => x.transfer_id)).toEqual(['tr_000000', 'tr_000001', 'tr_000002', 'tr_000003', 'tr_000004']);
      expect(server.requests.map((q) => q.url)).toEqual([
        '/v1/transfers?limit=2&offset=0', '/v1/transfers?limit=2&offset=2', '/v1/transfers?limit=2&offset=4',
      ]);
    } finally {
      await server.close();
    }
  });

  it('streams: each page is written before the next one is fetched', async () => {
    let run: ReturnType<typeof spawnSvc> | undefined;
    // The service answers page 2 only once page 1 is already on the CLI's stdout.
    const server = await pagedServer(250, 'has_more', async (req) => {
      if (!req.url.includes('offset=0')) await run!.waitFor('stdout', /^tr_000099\t/m, 10_000);
    });
    try {
      run = spawnSvc(['transfer', 'ls', '--all'], envFor(server.url));
      const r = await run.exited;
      expect(r.code, r.stderr).toBe(0);
      const rows = r.stdout.trimEnd().split('\n');
      expect(rows[0]).toBe(TSV_HEADER);
      expect(rows).toHaveLength(251);
      expect(rows[250]!.startsWith('tr_000249\t')).toBe(true);
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('pages through 100,000 transfers as one JSON array (its live heap: bench/list-heap.mjs)', async () => {
    const total = 100_000;
    const server = await pagedServer(total, 'has_more');
    try {
      const r = await runSvc(['--json', 'transfer', 'ls', '--all'], envFor(server.url));
      expect(r.code, r.stderr).toBe(0);
      const list = JSON.parse(r.stdout) as Transfer[];
      expect(list).toHaveLength(total);
      expect(new Set(list.map((x) => x.transfer_id)).size).toBe(total);
      expect(list[total - 1]!.transfer_id).toBe(`tr_${String(total - 1).padStart(6, '0')}`);
      expect(server.requests).toHaveLength(total / 100);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('stops quietly when the reader closes the pipe early', async () => {
    const server = await pagedServer(100_000, 'has_more');
    try {
      const run = spawnSvc(['transfer', 'ls', '--all'], envFor(server.url));
      await run.waitFor('stdout', /^tr_000150\t/m);
      run.child.stdout.destroy();
      const r = await run.exited;
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/EPIPE|Error/);
      expect(server.requests.length).toBeLessThan(1000);
    } finally {
      await server.close();
    }
  });
});
