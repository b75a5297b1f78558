// `svc transfer ls --all` as a stream, observed by counting, never by timing: which requests a
// (recorded) fake service receives and what had been written to stdout when each arrived, how
// many rows were decrypted, what stdout holds when a page fails half-way. Plus the same listing
// against the in-process sandbox: the streamed array, --jsonl and single pages agree.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../../src/api/client.js';
import { contexts, encryptTo } from '../../../src/crypto/ciphertext.js';
import { LocalReader } from '../../../src/crypto/reader.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { main } from '../../../src/main.js';
import { runCli, svcIn } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { ERROR, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer, type RecordedRequest, type Reply } from '../../helpers/scripted-server.js';

interface Transfer {
  transfer_id: string;
  status: string;
  to: string;
  amount?: string;
  memo?: string;
  [k: string]: unknown;
}

const CONFIG = mkdtempSync(join(tmpdir(), 'svc-e2e-list-all-'));
afterAll(() => rmSync(CONFIG, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const ACCOUNT = { account_id: 'acc_me', handle: '@me', type: 'personal', public_key: '0xabc', kyc_status: 'verified' };
const viewing = generateViewingKey('test');
const id = (i: number) => `tr_${String(i).padStart(6, '0')}`;

/** A transfer as a service lists it; amounts (and every third memo) encrypted to our viewing key. */
function transferAt(i: number, sealed: boolean): Transfer {
  const tid = id(i);
  return {
    transfer_id: tid, status: 'confirmed', from: '@me', to: '@acme', confidential: true, asset: 'USDG', tx_hash: `0x${i.toString(16)}`,
    created_at: '2024-01-01T00:00:00.000Z',
    ...(sealed ? { amount_ciphertext: encryptTo(viewing.publicKey, String(1_000_000 + i), contexts.transferAmount(tid, ACCOUNT.account_id)) } : {}),
    ...(sealed && i % 3 === 0 ? { memo_ciphertext: encryptTo(viewing.publicKey, `memo ${i}`, contexts.transferMemo(tid, ACCOUNT.account_id)) } : {}),
  };
}

interface PagedOptions {
  total: number;
  sealed?: boolean;
  /** Replaces the answer to the page that starts at this offset. */
  failAt?: { offset: number; reply: Reply | 'hang' };
  /** Called as each request arrives, before it is answered. */
  onRequest?: (req: RecordedRequest) => void;
}

/** A recorded fake service holding `total` transfers, answering pages with has_more. */
async function pagedServer(opts: PagedOptions): Promise<ScriptedServer> {
  const all = Array.from({ length: opts.total }, (_, i) => transferAt(i, Boolean(opts.sealed)));
  return startScriptedServer((req) => {
    opts.onRequest?.(req);
    if (req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
    const q = new URL(req.url, 'http://x').searchParams;
    const offset = Number(q.get('offset') ?? 0);
    const limit = Number(q.get('limit') ?? 20);
    if (opts.failAt && offset === opts.failAt.offset) return opts.failAt.reply;
    return { status: 200, body: { transfers: all.slice(offset, offset + limit), limit, offset, has_more: offset + limit < opts.total } };
  });
}

const envFor = (s: ScriptedServer, extra: Record<string, string> = {}) => ({
  SVC_CONFIG_DIR: CONFIG, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url, NO_COLOR: '1', ...extra,
});
const pageUrls = (s: ScriptedServer) => s.requests.map((r) => r.url);
const listUrl = (offset: number) => `/v1/transfers?limit=100&offset=${offset}`;

/** Rows in a chunk of --json / --jsonl / TSV output. */
const rowsIn = (text: string) => text.match(/tr_\d{6}/g)?.length ?? 0;

describe('prefetch and back-pressure (a recorded fake service, a stdout the test drains)', () => {
  it('asks for page n+1 before page n is written, never further ahead, and writes only into a drained stdout', async () => {
    const PAGES = 3; // 100 + 100 + 50 rows
    let acked = 0; // rows whose write stdout has completed
    const ackedAtRequest: number[] = [];
    const bufferedAtWrite: number[] = [];
    const held: Array<{ rows: number; done: () => void }> = [];
    let output = '';
    const server = await pagedServer({ total: 250, onRequest: (req) => {
      if (req.url.startsWith('/v1/transfers')) ackedAtRequest.push(acked);
      queueMicrotask(release);
    } });
    // What the CLI has asked its API client for (to tell "not asked yet" from "still on its way").
    const gets = vi.spyOn(ApiClient.prototype, 'get');
    const asked = () => gets.mock.calls.filter(([path]) => path === '/v1/transfers').length;
    // A consumer that completes a write only once the CLI waits for it ('drain') and, but for the
    // last page, once the request for the next page has reached the service (or was not even
    // asked for: then waiting would never end, and the assertions below say what went wrong).
    class Consumer extends Writable {
      constructor() {
        super({ highWaterMark: 1, decodeStrings: false });
        this.on('newListener', (event) => event === 'drain' && queueMicrotask(release));
      }
      override write(chunk: any, encoding?: any, cb?: any): boolean {
        bufferedAtWrite.push(this.writableLength);
        return super.write(chunk, encoding, cb);
      }
      override _write(chunk: string | Buffer, _enc: BufferEncoding, done: () => void): void {
        const text = String(chunk);
        output += text;
        held.push({ rows: rowsIn(text), done });
        release();
      }
    }
    const stdout = new Consumer();
    function release(): void {
      const next = held[0];
      if (!next) return;
      const pageOfLastRow = Math.ceil((acked + next.rows) / 100);
      const arrived = server.requests.filter((r) => r.url.startsWith('/v1/transfers')).length > pageOfLastRow;
      const onItsWay = asked() > pageOfLastRow && !arrived;
      const ready = next.rows === 0 || (stdout.listenerCount('drain') > 0 && (pageOfLastRow >= PAGES || !onItsWay));
      if (!ready) return;
      held.shift();
      acked += next.rows;
      next.done();
    }
    try {
      const stderr = new Writable({ write: (_c, _e, done) => done() });
      const code = await main(['--json', 'transfer', 'ls', '--all'], {
        stdin: Readable.from([]), stdout, stderr, env: envFor(server), tty: { stdin: false, stdout: false, stderr: false },
      });
      expect(code).toBe(0);
      // Exactly one request per page: has_more=false on the third ends the list.
      expect(pageUrls(server)).toEqual([listUrl(0), listUrl(100), listUrl(200)]);
      // Page 2 was asked for before page 1 was written, page 3 before page 2: and not before the
      // page two back was written (one page ahead, no more).
      expect(ackedAtRequest).toEqual([0, 0, 100]);
      // Every write went into an empty (drained) stdout: nothing piles up behind a slow reader.
      expect(bufferedAtWrite.every((n) => n === 0)).toBe(true);
      while (held.length) held.shift()!.done();
      const list = JSON.parse(output) as Transfer[];
      expect(list.map((t) => t.transfer_id)).toEqual(Array.from({ length: 250 }, (_, i) => id(i)));
    } finally {
      await server.close();
    }
  });
});

describe('decryption only where it shows (a fake service with encrypted amounts and memos)', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await pagedServer({ total: 250, sealed: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Runs with the decryption key set and counts amounts and memos opened. */
  async function counted(args: string[]) {
    const amounts = vi.spyOn(LocalReader.prototype, 'transferAmount');
    const memos = vi.spyOn(LocalReader.prototype, 'transferMemo');
    server.requests.length = 0;
    const r = await svcIn(args, envFor(server, { SVC_DECRYPTION_KEY: viewing.decryptionKey }));
    expect(r.code, r.stderr).toBe(0);
    const counts = { amounts: amounts.mock.calls.length, memos: memos.mock.calls.length, urls: pageUrls(server) };
    vi.restoreAllMocks();
    return { ...r, ...counts };
  }

  it('--json and --jsonl without --decrypt: no row decrypted, no key loaded, no account lookup', async () => {
    for (const args of [['--json', 'transfer', 'ls', '--all'], ['transfer', 'ls', '--all', '--jsonl']]) {
      const r = await counted(args);
      expect([r.amounts, r.memos]).toEqual([0, 0]);
      expect(r.urls).toEqual([listUrl(0), listUrl(100), listUrl(200)]);
      expect(r.stdout).not.toMatch(/"(amount|memo)"/);
    }
  });

  it('--decrypt: every amount and memo opened once; the one account lookup comes between pages, never beside one', async () => {
    const r = await counted(['--json', 'transfer', 'ls', '--all', '--decrypt']);
    expect(r.amounts).toBe(250);
    expect(r.memos).toBe(84); // every third row has a memo
    expect(r.urls).toEqual([listUrl(0), '/v1/accounts/me', listUrl(100), listUrl(200)]);
    const list = JSON.parse(r.stdout) as Transfer[];
    expect(list).toHaveLength(250);
    expect(list[7]!.amount).toBe('1.000007');
    expect(list[9]!.memo).toBe('memo 9');
    expect(list[8]!.memo).toBeUndefined();
  });

  it('TSV (piped, no --json): the AMOUNT column decrypts every amount, and no memo (not a column)', async () => {
    const r = await counted(['transfer', 'ls', '--all']);
    expect([r.amounts, r.memos]).toEqual([250, 0]);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(251);
    expect(rows[1]!.split('\t')[5]).toBe('1.00');
    expect(rows[250]!.split('\t')[5]).toBe('1.000249');
  });
});

describe('an error half-way through the pages', () => {
  const forbidden: Reply = { status: 403, body: ERROR('forbidden', 'this key may not list transfers any more') };

  it('--json: the rows already written, an unterminated array, then one JSON error on stderr and the exit code', async () => {
    const server = await pagedServer({ total: 300, failAt: { offset: 100, reply: forbidden } });
    try {
      const r = await svcIn(['--json', 'transfer', 'ls', '--all'], envFor(server));
      expect(r.code).toBe(3);
      expect(pageUrls(server)).toEqual([listUrl(0), listUrl(100)]);
      expect(() => JSON.parse(r.stdout)).toThrow(); // a partial list never parses as a complete one
      const rows = r.stdout.split('\n').slice(1).map((l) => JSON.parse(l.replace(/,$/, '')) as Transfer);
      expect(rows.map((t) => t.transfer_id)).toEqual(Array.from({ length: 100 }, (_, i) => id(i)));
      expect(JSON.parse(r.stderr)).toEqual({ error: expect.objectContaining({ code: 'forbidden', status: 403, request_id: 'req_fake123' }) });
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('--jsonl: complete lines for the rows already written; the error is JSON on stderr too', async () => {
    const server = await pagedServer({ total: 300, failAt: { offset: 200, reply: forbidden } });
    try {
      const r = await svcIn(['transfer', 'ls', '--all', '--jsonl'], envFor(server));
      expect(r.code).toBe(3);
      const lines = r.stdout.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((l) => (JSON.parse(l) as Transfer).transfer_id)).toEqual(Array.from({ length: 200 }, (_, i) => id(i)));
      expect((JSON.parse(r.stderr) as { error: { code: string } }).error.code).toBe('forbidden');
    } finally {
      await server.close();
    }
  });

  it('TSV: the rows, then the usual error report', async () => {
    const server = await pagedServer({ total: 300, failAt: { offset: 100, reply: forbidden } });
    try {
      const r = await svcIn(['transfer', 'ls', '--all'], envFor(server));
      expect(r.code).toBe(3);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(101);
      expect(r.stderr).toMatch(/^error: this key may not list transfers any more \(forbidden, request req_fake123\)$/m);
    } finally {
      await server.close();
    }
  });

  it('a malformed row on page 2: invalid_response (exit 1) naming the field, after page 1', async () => {
    const bad = { status: 200, body: { transfers: [transferAt(100, false), { ...transferAt(101, false), status: 'lost' }], has_more: false } };
    const server = await pagedServer({ total: 300, failAt: { offset: 100, reply: bad } });
    try {
      const r = await svcIn(['transfer', 'ls', '--all', '--jsonl'], envFor(server));
      expect(r.code).toBe(1);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(100);
      const { error } = JSON.parse(r.stderr) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_response');
      expect(error.message).toMatch(/^unexpected response from GET \/v1\/transfers: transfers\.1\.status: /);
      const plain = await svcIn(['transfer', 'ls', '--all'], envFor(server));
      expect(plain.code).toBe(1);
      expect(plain.stderr).toMatch(/^error: unexpected response from GET \/v1\/transfers: transfers\.1\.status: .* \(invalid_response\)$/m);
    } finally {
      await server.close();
    }
  });

  it('a page that never comes: --timeout (the whole network time) ends it with exit 7, after the rows written', async () => {
    const server = await pagedServer({ total: 300, failAt: { offset: 100, reply: 'hang' } });
    try {
      const r = await svcIn(['--timeout', '1s', '--json', 'transfer', 'ls', '--all', '--jsonl'], envFor(server));
      expect(r.code).toBe(7);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(100);
      expect((JSON.parse(r.stderr) as { error: { code: string } }).error.code).toBe('timeout');
      expect(pageUrls(server)).toEqual([listUrl(0), listUrl(100)]); // a GET that timed out is not retried past the budget
    } finally {
      await server.close();
    }
  });
});

describe('against the sandbox: the streamed array, --jsonl and single pages agree', () => {
  let t: TestSandbox;
  const TOTAL = 230;
  beforeAll(async () => {
    t = await startTestSandbox();
    expect((await t.svc(['sandbox', 'fund', '@alice', '1000'])).code).toBe(0);
    const key = t.keyOf('@alice');
    let next = 0;
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        const res = await fetch(`${t.url}/v1/transfers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `list-all-${i}` },
          body: JSON.stringify({ to: '@acme', amount: '0.01' }),
        });
        expect(res.status).toBe(201);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('--json --all is one array equal to the pages read one by one; three requests, no account lookup', async () => {
    const r = await t.svc(['--verbose', '--json', 'transfer', 'ls', '--all']);
    expect(r.code, r.stderr).toBe(0);
    const streamed = JSON.parse(r.stdout) as Transfer[];
    expect(streamed).toHaveLength(TOTAL);
    const pages: Transfer[] = [];
    for (const offset of [0, 100, 200]) pages.push(...(await t.svcJson<Transfer[]>(['transfer', 'ls', '--limit', '100', '--offset', String(offset)])));
    expect(streamed).toStrictEqual(pages);
    const requests = r.stderr.split('\n').filter((l) => l.startsWith('> GET '));
    expect(requests).toHaveLength(3);
    expect(requests.every((l) => l.includes('/v1/transfers?'))).toBe(true);
  });

  it('--jsonl: one object per line, the same objects; an empty list is no output at all, exit 0', async () => {
    const array = await t.svcJson<Transfer[]>(['transfer', 'ls', '--all']);
    const r = await t.svc(['transfer', 'ls', '--all', '--jsonl']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const lines = r.stdout.slice(0, -1).split('\n');
    expect(lines).toHaveLength(TOTAL);
    expect(lines.map((l) => JSON.parse(l) as Transfer)).toStrictEqual(array);
    // --jsonl without --all: one page, the same rule.
    const page = await t.svc(['transfer', 'ls', '--jsonl', '--limit', '5']);
    expect(page.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Transfer)).toStrictEqual(array.slice(0, 5));
    const empty = await t.svc(['transfer', 'ls', '--all', '--jsonl', '--status', 'failed']);
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', '']);
  });

  it('--decrypt adds the amounts; the same rows otherwise', async () => {
    const plain = await t.svcJson<Transfer[]>(['transfer', 'ls', '--all']);
    const r = await runCli(['transfer', 'ls', '--all', '--jsonl', '--decrypt'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const decrypted = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Transfer);
    expect(decrypted.map((x) => x.amount)).toEqual(plain.map(() => '0.01'));
    expect(decrypted.map(({ amount: _a, ...rest }) => rest)).toStrictEqual(plain);
  });
});
