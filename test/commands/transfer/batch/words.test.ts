// Issue 36, "Words", for a batch (docs/payouts.md): a rerun says what this run did (a row an
// earlier run sent reads `already sent (earlier run)`, not `sent`; TSV and the results file say it
// in `earlier`), and a dry run names a denial as the real run does (`policy_violation`, the rule
// in `reason`). End to end in-process against a sandbox.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../../helpers/e2e.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
  await t.svcOk(['sandbox', 'fund', '@alice', '1000']);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

function csv(name: string, lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-batch-words-')), name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const tsvRows = (out: string) => {
  const [head, ...rows] = out.trim().split('\n').map((l) => l.split('\t'));
  return rows.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]])));
};

describe('a rerun says what this run did', () => {
  it('table, TSV, JSON, the results file and the summary line tell a row sent now from one an earlier run sent', async () => {
    const path = csv('words.csv', ['to,amount,ref', '@acme,1.25,W-1', '@nosuchpayee,2,W-2', '@bob,3,W-3']);
    const first = await t.svc(['transfer', 'batch', path]);
    expect(first.code).toBe(4); // W-2: recipient_not_found
    writeFileSync(path, ['to,amount,ref', '@acme,1.25,W-1', '@acme,2,W-2', '@bob,3,W-3', ''].join('\n'));

    const out = join(path, '..', 'results.csv');
    const again = await runCli(['transfer', 'batch', path, '--out', out], { env: t.env, tty: { stdout: true, stderr: true }, columns: 120 });
    expect(again.code, again.stderr).toBe(0);
    const status = again.stdout.trim().split('\n').slice(1).map((l) => /^\s*(\d+)\s+\S+\s+[\d.]+\s+(.+?)\s+tr_/.exec(l)?.slice(1, 3));
    expect(status).toEqual([['2', 'already sent (earlier run)'], ['3', 'sent'], ['4', 'already sent (earlier run)']]);
    // What this run sent, then what an earlier run had (the JSON summary keeps its counts).
    expect(again.stderr).toContain('sent 1, held 0, failed 0, skipped 0; total 2.00 USDG; already sent by an earlier run 2 (not sent again)\n');

    // The results file: `earlier` after the old columns.
    const file = readFileSync(out, 'utf8').trim().split('\n');
    expect(file[0]).toBe('line,to,amount,ref,transfer_id,status,idempotency_key,error_code,message,reason,earlier');
    expect(file.slice(1).map((l) => l.split(',').at(-1))).toEqual(['true', 'false', 'true']);

    // Piped, and with --json, a third run: every row an earlier run's.
    const piped = await t.svc(['transfer', 'batch', path]);
    expect(piped.code).toBe(0);
    expect(tsvRows(piped.stdout).map((r) => [r.status, r.earlier])).toEqual([['sent', 'true'], ['sent', 'true'], ['sent', 'true']]);
    const doc = JSON.parse((await t.svc(['--json', 'transfer', 'batch', path])).stdout) as { rows: Array<{ status: string; earlier?: boolean }>; summary: Record<string, number> };
    expect(doc.rows.map((r) => [r.status, r.earlier])).toEqual([['sent', true], ['sent', true], ['sent', true]]);
    expect(doc.summary).toMatchObject({ sent: 3, earlier: 3 });
  });
});

describe('one code for one cause: a dry run names a denial as the real run does', () => {
  it('policy_violation with the rule in `reason`, in --dry-run and in the real run (JSON and TSV)', async () => {
    await t.svcOk(['agent', 'create', 'payer', '--allow', '@bob']);
    const key = (await t.svcOk(['sandbox', 'key', 'create', '--account', '@alice/payer'])).stdout.trim();
    await t.svcOk(['sandbox', 'fund', '@alice/payer', '100']);
    const env = { SVC_API_KEY: key };
    const path = csv('policy.csv', ['to,amount', '@bob,1', '@acme,2']);

    const dry = await t.svc(['--json', 'transfer', 'batch', path, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(6);
    const real = await t.svc(['--json', 'transfer', 'batch', path], { env });
    expect(real.code).toBe(6);
    const denied = (r: { stdout: string }) => (JSON.parse(r.stdout) as { rows: Array<Record<string, unknown>> }).rows[1];
    expect(denied(dry)).toMatchObject({ status: 'would_deny', error_code: 'policy_violation', reason: 'recipient_not_allowed' });
    expect(denied(real)).toMatchObject({ status: 'failed', error_code: 'policy_violation', reason: 'recipient_not_allowed' });

    const tsv = tsvRows((await t.svc(['transfer', 'batch', path, '--dry-run', '--batch-id', 'policy-tsv'], { env })).stdout);
    expect(tsv[1]).toMatchObject({ status: 'would_deny', error_code: 'policy_violation', reason: 'recipient_not_allowed' });
  });
});
