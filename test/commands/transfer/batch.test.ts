// `svc transfer batch` end to end against the in-process sandbox: a 1,000-row file with mixed
// recipients and assets, files with bad rows, an agent's dry run whose daily limit runs out
// mid-file, the results file, reruns that pay nothing twice, and a run killed with SIGKILL.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { BIN, spawnSvc } from '../../helpers/run.js';
import { hasTmux, killAllTmux, startTmux } from '../../helpers/tmux.js';
import { startScriptedServer } from '../../helpers/scripted-server.js';
import { loopbackCaFile } from '../../helpers/tls.js';
import { runCli } from '../../helpers/cli.js';

let t: TestSandbox;
let dir: string;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'svc-batch-'));
  for (const asset of ['USDG', 'USDC']) expect((await t.svc(['sandbox', 'fund', '@alice', '1000000', '--asset', asset])).code).toBe(0);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

interface Decrypted { transfer_id: string; to: string; asset: string; amount?: string; memo?: string }
/** Every transfer of @alice, decrypted locally (memos carry each row's ref). */
async function transfers(): Promise<Decrypted[]> {
  return t.svcJson<Decrypted[]>(['transfer', 'ls', '--all', '--decrypt']);
}
/**
 * How many transfers @alice has: the same list, not decrypted. A check that counts reads this;
 * decrypting 1,000+ amounts and memos (on worker threads past 1,000) for a count was a third of
 * the file's CPU, and the rows' contents are checked where they are read (transfers()).
 */
async function transferCount(): Promise<number> {
  return (await t.svcJson<unknown[]>(['transfer', 'ls', '--all'])).length;
}
const memoCounts = (list: readonly Decrypted[], prefix: string) => {
  const counts = new Map<string, number>();
  for (const x of list) if (x.memo?.startsWith(prefix)) counts.set(x.memo, (counts.get(x.memo) ?? 0) + 1);
  return counts;
};

const RECIPIENTS = ['@acme', '@bob', '0x1111111111111111111111111111111111111111', '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd'];

describe('a 1,000-row payout file', () => {
  it('sends every row once, with a results file; a rerun sends nothing and says so', async () => {
    const lines = ['to,amount,asset,memo,ref'];
    for (let i = 1; i <= 1000; i++) lines.push(`${RECIPIENTS[i % 4]},${i % 7}.${String(i % 100).padStart(2, '0')}5,${i % 3 ? 'USDG' : 'USDC'},"pay-A ${i}, thanks",A-${i}`);
    const path = file('a.csv', `${lines.join('\n')}\n`);
    const out = join(dir, 'a-results.csv');
    const before = await transferCount();

    const r = await t.svc(['transfer', 'batch', path, '--out', out, '--concurrency', '8']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(''); // not a terminal: nothing on stderr but errors
    const tsv = r.stdout.trim().split('\n');
    expect(tsv[0]).toBe('line\tto\tamount\tasset\tstatus\ttransfer_id\tidempotency_key\terror_code\tmessage\treason\tearlier');
    expect(tsv).toHaveLength(1001);
    expect(tsv.slice(1).every((l) => l.split('\t')[4] === 'sent')).toBe(true);

    const results = readFileSync(out, 'utf8').trim().split('\n');
    expect(results[0]).toBe('line,to,amount,asset,memo,ref,transfer_id,status,idempotency_key,error_code,message,reason,earlier');
    // A cell that begins with @ is one a spreadsheet would run: it gets a leading ' (docs/payouts.md).
    expect(results[1]).toMatch(/^2,"'@bob",1\.015,USDG,"pay-A 1, thanks",A-1,tr_\w+,sent,svc-batch-[0-9a-f]{32},,,,false$/);
    expect(results).toHaveLength(1001);

    const after = await transfers();
    expect(after.length - before).toBe(1000);
    const counts = memoCounts(after, 'pay-A ');
    expect(counts.size).toBe(1000);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    // Assets and amounts as in the file (decrypted locally): row 3 is USDC, 3.035, to 0xabcd….
    const row3 = after.find((x) => x.memo === 'pay-A 3, thanks')!;
    expect(row3).toMatchObject({ asset: 'USDC', amount: '3.035', to: RECIPIENTS[3] });

    const again = await t.svcJson<{ summary: Record<string, unknown>; rows: Array<{ status: string; transfer_id: string }> }>(['transfer', 'batch', path]);
    expect(again.summary).toMatchObject({ sent: 1000, failed: 0, earlier: 1000 });
    expect(await transferCount()).toBe(after.length);
  }, 120_000);
});

describe('validation comes first', () => {
  it('lists every bad row with its line and sends nothing (exit 2)', async () => {
    const path = file('bad.csv', [
      'to,amount,asset,memo,ref',
      '@acme,1.50,USDG,ok,B-1',
      'not a recipient,1,USDG,,B-2',
      '@acme,1.1234567,USDG,,B-3',
      '@acme,-4.718253,USDG,,B-4',
      '@acme,2,EURX,,B-5',
      `@acme,2,USDG,${'x'.repeat(300)},B-6`,
      '@acme,2,USDG,,B-1',
      ',2,USDG,,B-8',
      '@acme,,USDG,,B-9',
      '@acme,3,USDG,,B-10,extra',
    ].join('\n'));
    const before = await transferCount();
    const r = await t.svc(['transfer', 'batch', path]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: 9 rows of the file cannot be sent; nothing was sent \(invalid_batch\)$/m);
    for (const line of [3, 4, 5, 6, 7, 8, 9, 10, 11]) expect(r.stderr).toMatch(new RegExp(`^line ${line}: `, 'm'));
    expect(r.stderr).toMatch(/line 3: recipient "not a recipient"/);
    expect(r.stderr).toMatch(/line 4: amount must have at most 6 decimal places/);
    expect(r.stderr).toMatch(/line 6: asset/);
    expect(r.stderr).toMatch(/line 7: memo/);
    expect(r.stderr).toMatch(/line 8: ref "B-1" is already used on line 2/);
    expect(r.stderr).toMatch(/line 9: to is required/);
    expect(r.stderr).toMatch(/line 10: amount is required/);
    expect(r.stderr).toMatch(/line 11: it has a different number of fields/);
    expect(r.stderr).not.toMatch(/1\.1234567|-4\.718253/); // amounts are not echoed
    expect(r.stderr).toMatch(/hint: .*--skip-invalid/);
    expect(await transferCount()).toBe(before);

    const j = await t.svc(['--json', 'transfer', 'batch', path]);
    expect(j.code).toBe(2);
    expect(j.stdout).toBe('');
    const err = JSON.parse(j.stderr).error;
    expect(err.code).toBe('invalid_batch');
    expect(err.rows.map((x: { line: number }) => x.line)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);

    const skip = await t.svcJson<{ summary: Record<string, unknown>; rows: Array<{ line: number; status: string; error_code: string }> }>(['transfer', 'batch', path, '--skip-invalid']);
    expect(skip.summary).toMatchObject({ sent: 1, skipped: 9, failed: 0 });
    expect(skip.rows.filter((x) => x.status === 'skipped').every((x) => x.error_code === 'invalid_row')).toBe(true);
    expect(await transferCount()).toBe(before + 1);
  }, 30_000);

  it('refuses a file whose header is wrong, a JSON number amount, an unknown --out format', async () => {
    const typo = await t.svc(['transfer', 'batch', file('typo.csv', 'to,ammount\n@acme,1\n')]);
    expect(typo).toMatchObject({ code: 2 });
    expect(typo.stderr).toMatch(/^error: CSV header: unknown column "ammount"; the columns are to, amount, asset, memo, ref/m);
    const jsonl = await t.svc(['transfer', 'batch', file('n.jsonl', '{"to":"@acme","amount":1.1}\n')]);
    const gone = await t.svc(['transfer', 'batch', join(dir, 'gone.jsonl')]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/cannot read .*gone\.jsonl: no such file/);
    expect(jsonl.code).toBe(2);
    expect(jsonl.stderr).toMatch(/line 1: amount must be a decimal string in quotes/);
    const out = await t.svc(['transfer', 'batch', file('ok.csv', 'to,amount\n@acme,1\n'), '--out', join(dir, 'r.txt')]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--out "[^"]+" must end in \.csv or \.jsonl/);
    const missing = await t.svc(['transfer', 'batch', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope\.csv: no such file/);
  });

  it('refuses a batch whose total is more than the decrypted balance, sending nothing (exit 6)', async () => {
    const before = await transferCount();
    const r = await t.svc(['transfer', 'batch', file('big.csv', 'to,amount,asset\n@acme,900000,USDC\n@bob,900000,USDC\n')]);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: the batch needs more USDC than the account holds \(decrypted here\); nothing was sent \(insufficient_balance\)$/m);
    expect(await transferCount()).toBe(before);
  });

  it('reads JSON Lines from stdin ("-")', async () => {
    const input = '{"to":"@acme","amount":"0.25","memo":"stdin-1"}\n\n{"to":"@bob","amount":"0.5","asset":"USDC","memo":"stdin-2","ref":"S-2"}\n';
    const r = await t.svc(['--json', 'transfer', 'batch', '-', '--jsonl'], { input });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows.map((x: { line: number; status: string }) => [x.line, x.status])).toEqual([[1, 'sent'], [3, 'sent']]);
    expect(doc.summary.totals).toEqual({ USDG: '0.25', USDC: '0.50' });
  });
});

describe('failures, reruns and exit codes', () => {
  it('a row the service refuses fails (exit 1), and a rerun after fixing the cause sends only that row', async () => {
    // 0x2222… cannot receive confidential transfers: refused for good (no transfer exists).
    const path = file('mixed.csv', 'to,amount,ref\n@acme,1,M-1\n0x2222222222222222222222222222222222222222,1,M-2\n');
    const first = await t.svc(['--json', 'transfer', 'batch', path]);
    expect(first.code).toBe(1);
    const doc = JSON.parse(first.stdout);
    expect(doc.rows.map((x: { status: string; error_code: string }) => [x.status, x.error_code])).toEqual([['sent', ''], ['failed', 'recipient_not_confidential_ready']]);
    expect(JSON.parse(first.stderr).error).toMatchObject({ code: 'batch_incomplete', failed: 1 });
    const again = await t.svc(['--json', 'transfer', 'batch', path]);
    expect(again.code).toBe(1); // still refused: the same row, tried again under a new key
    const keys = [doc.rows[1].idempotency_key, JSON.parse(again.stdout).rows[1].idempotency_key];
    expect(keys[1]).toBe(`${keys[0]}-r1`);
    expect(JSON.parse(again.stdout).rows[0]).toMatchObject({ status: 'sent', earlier: true });
  });

  it('an agent key: rows above its threshold are held (exit 8 when none failed)', async () => {
    await t.svc(['agent', 'create', 'payouts', '--daily-limit', '1000', '--hitl-threshold', '50']);
    const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/payouts'])).stdout.trim();
    await t.svc(['sandbox', 'fund', '@alice/payouts', '500']);
    const r = await t.svc(['--json', 'transfer', 'batch', file('agent.csv', 'to,amount\n@acme,10\n@acme,60\n')], { env: { SVC_API_KEY: key } });
    expect(r.code, r.stderr).toBe(8);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows.map((x: { status: string }) => x.status)).toEqual(['sent', 'held']);
    expect(doc.rows[1].transfer_id).toMatch(/^txn_/);
  });

  it('--dry-run for an agent: today\'s spend and the rows before count toward its daily limit; nothing is sent (exit 6)', async () => {
    const created = await t.svcJson<{ decryption_key: string }>(['agent', 'create', 'dry', '--daily-limit', '100', '--hitl-threshold', '40']);
    const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/dry'])).stdout.trim();
    const env = { SVC_API_KEY: key, SVC_DECRYPTION_KEY: created.decryption_key };
    await t.svc(['sandbox', 'fund', '@alice/dry', '1000']);
    expect((await t.svc(['transfer', 'send', '@acme', '20'], { env })).code).toBe(0); // today: 20 spent
    const path = file('dry.csv', 'to,amount\n@acme,30\n@acme,45\n@acme,30\n@acme,30\n@acme,10\n');
    const before = await t.svcJson<unknown[]>(['transfer', 'ls'], { env });
    const held = await t.svcJson<unknown[]>(['pending', 'ls']);
    const r = await t.svc(['--json', 'transfer', 'batch', path, '--dry-run'], { env });
    expect(r.code, r.stderr).toBe(6);
    const doc = JSON.parse(r.stdout);
    expect(doc.dry_run).toBe(true);
    // 20 spent today; 30 makes 50; 45 is above the threshold (held: not counted); 30 makes 80;
    // the next 30 would make 110 > 100; the last 10 still fits (90).
    expect(doc.rows.map((x: { status: string }) => x.status)).toEqual(['would_send', 'would_hold', 'would_send', 'would_deny', 'would_send']);
    expect(doc.rows[3]).toMatchObject({ error_code: 'policy_violation', reason: 'daily_limit' }); // the real run's code, the rule in reason
    expect(await t.svcJson<unknown[]>(['transfer', 'ls'], { env })).toEqual(before);
    expect(await t.svcJson<unknown[]>(['pending', 'ls'])).toEqual(held);
  });

  it('with a live key and no terminal: --yes is required, the error carries no amount, nothing is sent', async () => {
    const live = await startScriptedServer((req) => (req.url === '/v1/accounts/me'
      ? { status: 200, body: { account_id: 'acct_live', handle: '@livecorp', type: 'business', kyc_status: 'verified', public_key: `0x${'1'.repeat(40)}`, created_at: '2026-01-01T00:00:00Z' } }
      : { status: 500, body: { error: { code: 'unexpected', message: 'no other request belongs here' } } }), { tls: true }); // a live key goes over https only
    try {
      const r = await t.svc(['transfer', 'batch', file('live.csv', 'to,amount,asset\n@acme,1.504172,USDG\n@bob,2.381946,USDC\n@bob,1.027431,USDG\n')], {
        env: { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-batch-live-')), SVC_API_KEY: `svc_live_${'a'.repeat(32)}`, SVC_BASE_URL: live.url },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: Sending 3 transfers from a LIVE account: confirmation required \(confirmation_required\)$/m);
      expect(r.stderr).not.toMatch(/2\.531603|2\.381946|1\.504172|1\.027431/); // no amount in an error (the question on a terminal has them)
      expect(live.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/accounts/me']);
    } finally {
      await live.close();
    }
  });
});

describe.skipIf(!hasTmux())('with a live key on a terminal', () => {
  afterEach(killAllTmux);

  it('the question states the count and totals per asset; No sends nothing (exit 1)', async () => {
    const live = await startScriptedServer((req) => (req.url === '/v1/accounts/me'
      ? { status: 200, body: { account_id: 'acct_live', handle: '@livecorp', type: 'business', kyc_status: 'verified', public_key: `0x${'1'.repeat(40)}`, created_at: '2026-01-01T00:00:00Z' } }
      : { status: 500, body: { error: { code: 'unexpected', message: 'no other request belongs here' } } }), { tls: true }); // a live key goes over https only
    try {
      const path = file('live-tty.csv', 'to,amount,asset\n@acme,1.5,USDG\n@bob,2,USDC\n@bob,1,USDG\n');
      const term = await startTmux([process.execPath, BIN, 'transfer', 'batch', path], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', NO_COLOR: '1', SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-batch-live-')), SVC_API_KEY: `svc_live_${'c'.repeat(32)}`, SVC_BASE_URL: live.url, NODE_EXTRA_CA_CERTS: loopbackCaFile() },
        width: 100,
      });
      await term.waitFor('Send 3 transfers (2.50 USDG and 2.00 USDC) from a LIVE account? (y/N)');
      await term.sendText('n');
      await term.sendKeys('Enter');
      expect(await term.waitForExit()).toBe(1);
      expect(await term.capture()).toContain('Cancelled; nothing was sent.');
      expect(live.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/accounts/me']);
    } finally {
      await live.close();
    }
  }, 30_000);
});

describe('Ctrl-C', () => {
  it('stops starting rows, reports the rest as not_sent (exit 130); the rerun sends exactly those', async () => {
    const ctrlC = new AbortController();
    let posts = 0;
    const fake = await startScriptedServer((req) => {
      if (req.url === '/v1/accounts/me') return { status: 200, body: { account_id: 'acct_fake', handle: '@fake', type: 'personal', kyc_status: 'verified', public_key: `0x${'2'.repeat(40)}`, created_at: '2026-01-01T00:00:00Z' } };
      if (req.method === 'POST' && req.url === '/v1/transfers') {
        posts++;
        if (posts === 3) ctrlC.abort('SIGINT'); // pressed while the third row is in flight
        const body = JSON.parse(req.body) as { to: string };
        return { status: 201, body: { transfer_id: `tr_${String(posts).padStart(24, '0')}`, status: 'pending', to: body.to, confidential: true, created_at: '2026-11-23T12:00:00Z' } };
      }
      return { status: 404, body: { error: { code: 'not_found', message: 'no such route here' } } };
    });
    try {
      const env = { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-batch-int-')), SVC_API_KEY: `svc_test_${'b'.repeat(32)}`, SVC_BASE_URL: fake.url };
      const path = file('int.csv', `to,amount,ref\n${Array.from({ length: 10 }, (_, i) => `@acme,1,I-${i + 1}`).join('\n')}\n`);
      const r = await runCli(['--json', 'transfer', 'batch', path, '--concurrency', '1'], { env, interrupt: ctrlC.signal });
      expect(r.code).toBe(130);
      const doc = JSON.parse(r.stdout);
      expect(doc.interrupted).toBe(true);
      expect(doc.rows.map((x: { status: string }) => x.status)).toEqual([...Array(3).fill('sent'), ...Array(7).fill('not_sent')]);
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'interrupted' });
      expect(JSON.parse(r.stderr).error.message).toMatch(/7 rows not sent; run the same command again/);
      const again = await runCli(['--json', 'transfer', 'batch', path, '--concurrency', '1'], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(posts).toBe(10); // 3, then exactly the 7 not yet accepted
      expect(JSON.parse(again.stdout).summary).toMatchObject({ sent: 10, earlier: 3 });
    } finally {
      await fake.close();
    }
  });
});

describe('a run killed with SIGKILL', () => {
  it('after the rerun every row was paid exactly once', async () => {
    const rows = 400;
    const lines = ['to,amount,memo,ref'];
    for (let i = 1; i <= rows; i++) lines.push(`${RECIPIENTS[i % 4]},0.0${(i % 9) + 1},kill-${i},K-${i}`);
    const path = file('kill.csv', `${lines.join('\n')}\n`);
    const before = await transferCount();
    const journalDir = join(t.configDir, 'ledger');
    // Rows the ledger records as accepted (each row also has a line for its try, written before it is sent).
    const sentSoFar = () => (existsSync(journalDir) ? readdirSync(journalDir).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(journalDir, f), 'utf8')).join('').split('"status":"accepted"').length - 1 : 0);

    // Kill it once a quarter of the rows are recorded: mid-run, with requests in flight. Each
    // ledger write wakes the watcher (no polling); the test's own timeout bounds a batch that stalls.
    mkdirSync(journalDir, { recursive: true, mode: 0o700 });
    const baseline = sentSoFar();
    const quarterRecorded = new Promise<void>((resolve) => {
      const watcher = watch(journalDir, () => {
        if (sentSoFar() - baseline < rows / 4) return;
        watcher.close();
        resolve();
      });
    });
    const run = spawnSvc(['transfer', 'batch', path, '--concurrency', '2'], t.env);
    await quarterRecorded;
    run.child.kill('SIGKILL');
    const killed = await run.exited;
    expect(killed.code).toBe(null);
    const partial = (await transferCount()) - before;
    expect(partial).toBeGreaterThanOrEqual(rows / 4);
    expect(partial).toBeLessThan(rows);

    const rerun = await t.svc(['--json', 'transfer', 'batch', path, '--concurrency', '4']);
    expect(rerun.code, `${rerun.stderr}\n${rerun.stdout.split('\n').filter((l) => l.includes('failed')).join('\n')}`).toBe(0);
    const doc = JSON.parse(rerun.stdout);
    expect(doc.summary.sent).toBe(rows);
    expect(doc.summary.earlier).toBeGreaterThanOrEqual(rows / 4);

    const after = await transfers();
    expect(after.length - before).toBe(rows);
    const counts = memoCounts(after, 'kill-');
    expect(counts.size).toBe(rows);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});
