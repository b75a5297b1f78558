// `svc transfer ls --all --decrypt` on a long list: past WORKERS_AFTER rows the amounts and memos
// are opened on worker threads. Observed by counting, never by timing: how many ciphertexts each
// thread opened, and that the output is byte for byte what the same list gives with every row
// opened on the main thread (OpenPool.start stubbed to give no pool), failures included.
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_WORKERS, TransferOpener, WORKERS_AFTER } from '../../../src/commands/transfer/page-opener.js';
import { contexts, encryptTo } from '../../../src/crypto/ciphertext.js';
import { OpenPool } from '../../../src/crypto/open-pool.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { svcIn } from '../../helpers/cli.js';
import { ERROR, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../../helpers/scripted-server.js';

const CONFIG = mkdtempSync(join(tmpdir(), 'svc-e2e-ls-workers-'));
afterAll(() => rmSync(CONFIG, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const ACCOUNT = { account_id: 'acc_me', handle: '@me', type: 'personal', public_key: '0xabc', kyc_status: 'verified' };
const viewing = generateViewingKey('test');
const other = generateViewingKey('test');
const id = (i: number) => `tr_${String(i).padStart(6, '0')}`;
const TOTAL = WORKERS_AFTER + 600; // six pages past the threshold
/** Workers this machine gets (none on a single CPU: the test of spreading is skipped there). */
const WORKERS = Math.min(availableParallelism(), MAX_WORKERS);

/** A ciphertext whose ephemeral key is all zeros: the key agreement itself fails (not CiphertextError). */
const BROKEN = Buffer.concat([Buffer.from([1]), Buffer.alloc(32), Buffer.alloc(12), Buffer.alloc(20)]).toString('base64url');

type Row = Record<string, unknown>;

/**
 * Row i: an amount encrypted to our key, a memo on every third; every 10th a standard transfer
 * (no ciphertext), every 97th encrypted to another key and every 89th to another transfer's
 * context (neither opens here); `special` replaces the amount ciphertext of some rows.
 */
function transferAt(i: number, special: Map<number, string>): Row {
  const tid = id(i);
  const base: Row = { transfer_id: tid, status: 'confirmed', from: '@me', to: '@acme', asset: 'USDG', tx_hash: `0x${i.toString(16)}`, created_at: '2024-01-01T00:00:00.000Z' };
  if (i % 10 === 5) return { ...base, confidential: false };
  const { amount, memo } = sealedAt(i);
  return {
    ...base,
    confidential: true,
    amount_ciphertext: special.get(i) ?? amount,
    ...(memo !== undefined ? { memo_ciphertext: memo } : {}),
  };
}

/**
 * Row i's ciphertexts, made once for the file: the lists below are served again and again (five
 * of 1,600 rows each, ~17,000 encryptions, half the file's CPU, when made afresh for each); what
 * a list opens does not depend on whether its ciphertexts are new.
 */
const sealed = new Map<number, { amount: string; memo?: string }>();
function sealedAt(i: number): { amount: string; memo?: string } {
  let s = sealed.get(i);
  if (!s) {
    const tid = id(i);
    const key = i % 97 === 3 ? other.publicKey : viewing.publicKey;
    const context = contexts.transferAmount(i % 89 === 7 ? id(i + 1) : tid, ACCOUNT.account_id);
    s = {
      amount: encryptTo(key, String(1_000_000 + i), context),
      ...(i % 3 === 0 ? { memo: encryptTo(viewing.publicKey, `memo ${i}`, contexts.transferMemo(tid, ACCOUNT.account_id)) } : {}),
    };
    sealed.set(i, s);
  }
  return s;
}

/**
 * Serves `rows`, 100 a page. The page after the one on which the workers are started is held
 * until they are ready (see listed()): which rows a worker opens does not depend on how fast
 * they start.
 */
function pagedServer(rows: Row[]): Promise<ScriptedServer> {
  return startScriptedServer(async (req) => {
    if (req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
    const q = new URL(req.url, 'http://x').searchParams;
    const offset = Number(q.get('offset') ?? 0);
    const limit = Number(q.get('limit') ?? 20);
    if (offset === holdAt) await poolReady;
    return { status: 200, body: { transfers: rows.slice(offset, offset + limit), limit, offset, has_more: offset + limit < rows.length } };
  });
}
let holdAt = -1;
let poolReady: Promise<unknown> = Promise.resolve();

const envFor = (s: ScriptedServer) => ({ SVC_CONFIG_DIR: CONFIG, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url, NO_COLOR: '1', SVC_DECRYPTION_KEY: viewing.decryptionKey });

/**
 * One run, with the opener it used (its counts), and every row on the main thread when `alone`.
 * Otherwise the workers start on the page at `threshold(rows, memo)`, and the page after it is
 * held until they are ready: from there on, every page goes to them.
 */
async function listed(server: ScriptedServer, args: string[], alone = false, at = -1) {
  const closed = vi.spyOn(TransferOpener.prototype, 'close');
  const poolClosed = vi.spyOn(OpenPool.prototype, 'close');
  const start = OpenPool.start.bind(OpenPool);
  let pool: OpenPool | undefined;
  let started!: (pool: OpenPool | undefined) => void;
  holdAt = at < 0 ? -1 : at + 100;
  poolReady = new Promise<OpenPool | undefined>((resolve) => (started = resolve)).then((pool) => pool?.whenReady());
  vi.spyOn(OpenPool, 'start').mockImplementation((opts) => {
    pool = alone ? undefined : start(opts);
    started(pool);
    return pool;
  });
  const r = await svcIn(args, envFor(server));
  holdAt = -1;
  const opener = closed.mock.contexts[0] as TransferOpener | undefined;
  const counts = { here: opener?.onThisThread, perWorker: opener?.perWorker ?? [] };
  // Whether the workers were ended by the time the command returned: closed once, none ready.
  const ended = pool ? poolClosed.mock.calls.length === 1 && !pool.ready : undefined;
  vi.restoreAllMocks();
  return { ...r, ...counts, ended };
}

/** Ciphertexts the listing opens among rows [from, to): amounts, and memos with --decrypt. */
function ciphertexts(rows: Row[], from: number, to: number, memo: boolean): number {
  return rows.slice(from, to).reduce<number>((n, t) => n + (t.amount_ciphertext ? 1 : 0) + (memo && t.memo_ciphertext ? 1 : 0), 0);
}
/** The index just past the WORKERS_AFTER-th row carrying a ciphertext, at a page boundary. */
function threshold(rows: Row[], memo: boolean): number {
  let seen = 0;
  for (let page = 0; page < rows.length; page += 100) {
    if (seen >= WORKERS_AFTER) return page;
    seen += rows.slice(page, page + 100).filter((t) => t.amount_ciphertext || (memo && t.memo_ciphertext)).length;
  }
  return rows.length;
}

describe.skipIf(WORKERS < 2)('a long list opened on worker threads', () => {
  const rows = Array.from({ length: TOTAL }, (_, i) => transferAt(i, new Map()));
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await pagedServer(rows);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('--json --decrypt: the rows past the threshold are spread over the workers, and the output is the one-thread output, in order', async () => {
    const args = ['--json', 'transfer', 'ls', '--all', '--decrypt'];
    const at = threshold(rows, true);
    const spread = await listed(server, args, false, at);
    const alone = await listed(server, args, true);
    expect([spread.code, alone.code], spread.stderr + alone.stderr).toEqual([0, 0]);
    expect(spread.stdout).toBe(alone.stdout);
    expect([spread.ended, alone.ended]).toEqual([true, undefined]);

    // The page the workers were started on was opened here, and every page after it on them.
    expect(spread.here).toBe(ciphertexts(rows, 0, at + 100, true));
    expect(spread.perWorker).toHaveLength(WORKERS);
    for (const n of spread.perWorker) expect(n).toBeGreaterThan(0);
    expect(spread.perWorker.reduce((a, b) => a + b, 0)).toBe(ciphertexts(rows, at + 100, TOTAL, true));
    expect(alone.here).toBe(ciphertexts(rows, 0, TOTAL, true));
    expect(alone.perWorker).toEqual([]);

    // What the rows say, in order: amounts and memos where they open, nothing added where they do not.
    const list = JSON.parse(spread.stdout) as Row[];
    expect(list.map((t) => t.transfer_id)).toEqual(rows.map((t) => t.transfer_id));
    const last = TOTAL - 1; // 1599: past the threshold, a memo (1599 = 3 × 533)
    expect([list[last]!.amount, list[last]!.memo]).toEqual(['1.001599', `memo ${last}`]);
    expect(list[1201]!.amount).toBe('1.001201');
    expect(list[1167]!.amount).toBeUndefined(); // encrypted to another key (1167 % 97 = 3)
    expect(list[1164]!.amount).toBeUndefined(); // sealed to another transfer's context (1164 % 89 = 7)
    expect(list[1205]!).not.toHaveProperty('amount'); // a standard transfer
    expect(list[1202]!).not.toHaveProperty('memo');
  });

  it('TSV (amounts only, the AMOUNT column) and --jsonl: the same spread, the same output as one thread', async () => {
    for (const [args, memo] of [[['transfer', 'ls', '--all'], false], [['transfer', 'ls', '--all', '--jsonl', '--decrypt'], true]] as const) {
      const at = threshold(rows, memo);
      const spread = await listed(server, [...args], false, at);
      const alone = await listed(server, [...args], true);
      expect([spread.code, alone.code], spread.stderr + alone.stderr).toEqual([0, 0]);
      expect(spread.stdout).toBe(alone.stdout);
      expect(spread.here).toBe(ciphertexts(rows, 0, at + 100, memo));
      expect(spread.perWorker.reduce((a, b) => a + b, 0)).toBe(ciphertexts(rows, at + 100, TOTAL, memo));
      expect(Math.min(...spread.perWorker)).toBeGreaterThan(0);
    }
  });

  it('a list of WORKERS_AFTER rows or fewer starts no worker', async () => {
    const short = await pagedServer(rows.slice(0, WORKERS_AFTER));
    try {
      const r = await listed(short, ['--json', 'transfer', 'ls', '--all', '--decrypt']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.perWorker).toEqual([]);
      expect(r.here).toBe(ciphertexts(rows, 0, WORKERS_AFTER, true));
    } finally {
      await short.close();
    }
  });

  it('--verbose says how many each side opened, once, at the end', async () => {
    const at = threshold(rows, true);
    const r = await listed(server, ['--verbose', '--json', 'transfer', 'ls', '--all', '--decrypt'], false, at);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/^opened .*$/gm)).toEqual([
      `opened ${ciphertexts(rows, 0, at + 100, true)} ciphertexts on this thread and ${ciphertexts(rows, at + 100, TOTAL, true)} on ${WORKERS} worker threads`,
    ]);
  });
});

describe.skipIf(WORKERS < 2)('a ciphertext that fails in a worker fails as it does on the main thread', () => {
  // Rows past the threshold (on a worker) and early (on the main thread) with the same defect.
  const cases: Array<[string, string]> = [
    ['a key agreement that fails (an all-zero ephemeral key)', BROKEN],
    ['a plaintext that is no amount', encryptTo(viewing.publicKey, 'abc', contexts.transferAmount(id(1301), ACCOUNT.account_id))],
  ];
  for (const [what, ciphertext] of cases) {
    it(what, async () => {
      const late = await pagedServer(Array.from({ length: TOTAL }, (_, i) => transferAt(i, new Map([[1301, ciphertext]]))));
      // The same defect on row 1, on the main thread.
      const onRow1 = ciphertext === BROKEN ? BROKEN : encryptTo(viewing.publicKey, 'abc', contexts.transferAmount(id(1), ACCOUNT.account_id));
      const early = await pagedServer(Array.from({ length: TOTAL }, (_, i) => transferAt(i, new Map([[1, onRow1]]))));
      try {
        const args = ['--json', 'transfer', 'ls', '--all', '--decrypt'];
        const plain = Array.from({ length: TOTAL }, (_, i) => transferAt(i, new Map()));
        const at = threshold(plain, true); // 1,200: row 1301 is on the first page the workers get
        const spread = await listed(late, args, false, at);
        const alone = await listed(late, args, true);
        const first = await listed(early, args);
        // The row was past the threshold, on a worker: a failed key agreement is opened again
        // here (and fails here as it always did); a plaintext that is no amount fails here, where
        // every amount is formatted.
        expect(spread.perWorker.length).toBe(WORKERS);
        expect(spread.here).toBe(ciphertexts(plain, 0, at + 100, true) + (ciphertext === BROKEN ? 1 : 0));
        // Same exit code, same one-line JSON error, same rows written before the failing page.
        expect(spread.code).not.toBe(0);
        expect([spread.code, spread.stderr, spread.stdout]).toEqual([alone.code, alone.stderr, alone.stdout]);
        expect(spread.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(spread.stdout.match(/"transfer_id"/g)).toHaveLength(1300);
        expect([first.code, first.stderr]).toEqual([spread.code, spread.stderr]);
        expect(spread.ended).toBe(true);
      } finally {
        await late.close();
        await early.close();
      }
    });
  }
});

describe.skipIf(WORKERS < 2)('a page that fails after the workers started', () => {
  it('fails as it does with every row on the main thread, with the rows before it written, and ends the workers', async () => {
    const rows = Array.from({ length: TOTAL }, (_, i) => transferAt(i, new Map()));
    const at = threshold(rows, true);
    const failAt = at + 300; // two pages after the workers took over
    const server = await startScriptedServer(async (req) => {
      if (req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
      const q = new URL(req.url, 'http://x').searchParams;
      const offset = Number(q.get('offset') ?? 0);
      const limit = Number(q.get('limit') ?? 20);
      if (offset === holdAt) await poolReady;
      if (offset === failAt) return { status: 403, body: ERROR('forbidden', 'this key may not list transfers any more') };
      return { status: 200, body: { transfers: rows.slice(offset, offset + limit), limit, offset, has_more: offset + limit < rows.length } };
    });
    try {
      const args = ['--json', 'transfer', 'ls', '--all', '--decrypt'];
      const spread = await listed(server, args, false, at);
      const alone = await listed(server, args, true);
      expect(spread.perWorker.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(spread.code).toBe(3);
      expect((JSON.parse(spread.stderr) as { error: { code: string } }).error.code).toBe('forbidden');
      expect([spread.code, spread.stderr, spread.stdout]).toEqual([alone.code, alone.stderr, alone.stdout]);
      expect(spread.stdout.match(/"transfer_id"/g)).toHaveLength(failAt);
      expect(spread.ended).toBe(true);
    } finally {
      await server.close();
    }
  });
});

