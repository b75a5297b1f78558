// A batch sent with an agent's key: rows above its threshold are held for a human (exit 8). The
// same command run again proposes none of them a second time; it asks what each became and
// reports it (issue 32): approved, the transfer the approval made (exit 0); rejected, a failed row
// `transaction_rejected` (exit 6); let expire, a failed row `transaction_expired` (exit 5). End
// to end through the CLI in this process, the owner deciding with `svc pending`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../../helpers/e2e.js';

let t: TestSandbox;
let dir: string;
/** The agent's environment: its own key. */
let agent: Record<string, string>;

beforeAll(async () => {
  t = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'svc-batch-held-'));
  expect((await t.svc(['agent', 'create', 'payroll', '--hitl-threshold', '50'])).code).toBe(0);
  const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/payroll'])).stdout.trim();
  expect((await t.svc(['sandbox', 'fund', '@alice/payroll', '1000'])).code).toBe(0);
  agent = { SVC_API_KEY: key };
}, 30_000);
afterAll(async () => {
  await t?.close();
});

interface Row { status: string; transfer_id: string; error_code: string; message?: string; earlier?: boolean }
interface Doc { summary: Record<string, unknown>; rows: Row[] }

/** The agent runs `svc --json transfer batch <name>` on a one-row file: exit code, its row, the summary. */
async function batch(name: string, row: string): Promise<{ code: number | null; row: Row; summary: Record<string, unknown>; stderr: string }> {
  const path = join(dir, name);
  writeFileSync(path, `to,amount,ref\n${row}\n`);
  const r = await t.svc(['--json', 'transfer', 'batch', path], { env: agent });
  const doc = JSON.parse(r.stdout) as Doc;
  expect(doc.rows).toHaveLength(1);
  return { code: r.code, row: doc.rows[0]!, summary: doc.summary, stderr: r.stderr };
}

/** Held transactions the owner still has to decide. */
const pending = async () => (await t.svcJson<unknown[]>(['pending', 'ls'])).length;
/** Transfers the agent made. */
const transfers = async () => (await t.svcJson<unknown[]>(['transfer', 'ls', '--all'], { env: agent })).length;

/** The first run: the row is held (exit 8); its held transaction's id. */
async function held(name: string, row: string): Promise<string> {
  const first = await batch(name, row);
  expect(first.code, first.stderr).toBe(8);
  expect(first.row).toMatchObject({ status: 'held', transfer_id: expect.stringMatching(/^txn_/) });
  return first.row.transfer_id;
}

describe('a held row, run again after the owner decided', () => {
  it('approved: the row reports the transfer the approval made (exit 0), nothing proposed again', async () => {
    const txn = await held('approved.csv', '@acme,60,A-1');
    const approved = await t.svc(['--json', 'pending', 'approve', txn]);
    expect(approved.code, approved.stderr).toBe(0);
    const made = (JSON.parse(approved.stdout) as { transfer_id: string }).transfer_id;
    expect(made).toMatch(/^tr_/);
    const before = { pending: await pending(), transfers: await transfers() };

    const again = await batch('approved.csv', '@acme,60,A-1');
    expect(again.code, again.stderr).toBe(0);
    expect(again.row).toMatchObject({ status: 'sent', transfer_id: made, earlier: true, message: 'held for approval, then approved, by an earlier run of this batch (same ref): not sent again' });
    expect(again.summary).toMatchObject({ sent: 1, held: 0, failed: 0, earlier: 1 });
    // What the approval became is in the ledger now: the next run reports it without asking.
    expect((await batch('approved.csv', '@acme,60,A-1')).row).toMatchObject({ status: 'sent', transfer_id: made });
    expect({ pending: await pending(), transfers: await transfers() }).toEqual(before);
  });

  it('rejected: a failed row transaction_rejected (exit 6), nothing proposed again', async () => {
    const txn = await held('rejected.csv', '@bob,70,R-1');
    expect((await t.svc(['pending', 'reject', txn])).code).toBe(0);
    const before = { pending: await pending(), transfers: await transfers() };

    const again = await batch('rejected.csv', '@bob,70,R-1');
    expect(again.code, again.stderr).toBe(6);
    expect(again.row).toMatchObject({ status: 'failed', error_code: 'transaction_rejected', transfer_id: txn, earlier: true });
    expect(again.row.message).toMatch(/^held for approval by an earlier run of this batch, then rejected: nothing was sent; not sent again/);
    expect(JSON.parse(again.stderr).error).toMatchObject({ code: 'batch_incomplete', failed: 1 });
    expect({ pending: await pending(), transfers: await transfers() }).toEqual(before);
  });

  it('let expire (the sandbox\'s clock past the approval window): a failed row transaction_expired (exit 5), nothing proposed again', async () => {
    const txn = await held('expired.csv', '@acme,80,X-1');
    expect((await t.svc(['sandbox', 'clock', 'advance', '16m'])).code).toBe(0);
    const before = { pending: await pending(), transfers: await transfers() };

    const again = await batch('expired.csv', '@acme,80,X-1');
    expect(again.code, again.stderr).toBe(5);
    expect(again.row).toMatchObject({ status: 'failed', error_code: 'transaction_expired', transfer_id: txn, earlier: true });
    expect(again.row.message).toMatch(/^held for approval by an earlier run of this batch, and nobody approved it in time: nothing was sent/);
    expect({ pending: await pending(), transfers: await transfers() }).toEqual(before);
  });
});
