// Ids in tables are whole or not shown (docs/ux.md, Ids): the lists whose ids are pasted back
// (`transfer ls`, `pending ls`, `sandbox key ls`, `agent ls`) laid out at 80, 100 and 160
// columns with the widest usual values: every id column shown holds every id whole, the main
// id column is always shown, and no line is wider than the terminal.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { agentColumns } from '../../src/commands/agent/ls.js';
import { pendingColumns } from '../../src/commands/pending/ls.js';
import { keyColumns } from '../../src/commands/sandbox/key-ls.js';
import { transferColumns } from '../../src/commands/transfer/columns.js';
import { palette } from '../../src/io/colors.js';
import { printList, type Column, type Row } from '../../src/io/render.js';
import { createStreams } from '../../src/io/streams.js';
import { textWidth } from '../../src/io/table.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const now = () => NOW;
const asIs = (t: string) => t;
const FAR = '0x7A3F000000000000000000000000000000091c2B';
const OTHER = '0x00000000219ab540356cBB839Cbe05303d7705Fa';
const BOT = '@alice/payroll-disbursement-bot';
const HASH = `0x${'9f'.repeat(32)}`;

function table(columns: Column[], rows: Row[], width: number): string[] {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const io = createStreams({ stdout: out, stderr: new PassThrough(), stdin: new PassThrough(), env: {}, tty: { stdout: true }, columns: width });
  printList(io, 'table', rows, columns);
  return text.split('\n').slice(0, -1);
}

/** An id of the sandbox's form: a prefix and `n` letters and digits (`seed` tells rows apart). */
const id = (prefix: string, n: number, seed: string) => `${prefix}${`${seed}Q2xLm7RkPz4Vs5T5nESr8gOnwtHLQ6bW`.slice(0, n)}`;

/**
 * Lays the list out at each width and checks the rule: the main id column (`main`) is shown
 * with every row's id whole; any other id column shown does too (or is dropped whole); nothing
 * that starts like an id is cut (`…`); no line is wider than the terminal.
 */
function checkIds(columns: Column[], rows: Row[], main: string | undefined, others: string[]): void {
  for (const width of [80, 100, 160]) {
    const lines = table(columns, rows, width);
    const where = `${width} columns:\n${lines.join('\n')}`;
    for (const l of lines) expect(textWidth(l), where).toBeLessThanOrEqual(width);
    const headers = lines[0]!.split(/\s{2,}/);
    for (const key of [...(main ? [main] : []), ...others]) {
      const header = columns.find((c) => c.key === key)!.header;
      if (key !== main && !headers.includes(header)) continue; // dropped whole
      expect(headers, where).toContain(header);
      rows.forEach((row, k) => {
        if (typeof row[key] === 'string') expect(lines[k + 1]!.split(/\s+/), where).toContain(row[key]);
      });
    }
    expect(lines.join('\n'), where).not.toMatch(/\b(tr|txn|key|acct|pol)_\w*…/);
  }
}

describe('ids stay whole at 80, 100 and 160 columns', () => {
  it('transfer ls: ID always; TX HASH whole or dropped', async () => {
    const p = await palette(createStreams({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: { NO_COLOR: '1' }, tty: {} }));
    const rows = [
      { transfer_id: id('tr_', 24, 'n8'), status: 'confirmed', to: FAR, from: OTHER, amount: '1234.125', asset: 'USDG', confidential: true, created_at: '2026-11-23T11:57:00Z', tx_hash: HASH },
      { transfer_id: id('tr_', 24, 'HL'), status: 'pending', to: BOT, from: '@alice', amount: '0.000001', asset: 'USDG', confidential: false, created_at: '2026-11-23T11:59:00Z', tx_hash: null },
    ];
    checkIds(transferColumns(p, now, asIs), rows, 'transfer_id', ['tx_hash']);
  });

  it('pending ls: ID always', () => {
    const rows = [
      { transaction_id: id('txn_', 24, 'w3'), agent: BOT, to: FAR, amount: '1075.5 USDG', memo: 'held: above the threshold of the nightly run', requested_at: '2026-11-23T11:58:30Z', expires_at: '2026-11-23T12:13:30Z', time_left: '13m30s' },
      { transaction_id: id('txn_', 24, 'cj'), agent: '@alice/ops', to: '@acme', amount: '123456.25 USDC', memo: '', requested_at: '2026-11-23T11:59:00Z', expires_at: '2026-11-23T12:14:00Z', time_left: '14m00s' },
    ];
    checkIds(pendingColumns(asIs, now), rows, 'transaction_id', []);
  });

  it('sandbox key ls: KEY ID always (what revoke takes)', () => {
    const rows = [
      { key_id: id('key_', 16, 'Ab'), name: 'the nightly payroll runner on the build server', account: BOT, key_hint: 'svc_test_****6kS8', created_at: '2026-11-20T12:00:00Z', last_used_at: '2026-11-23T11:59:00Z', request_count: 123456 },
      { key_id: id('key_', 16, 'Zx'), name: 'sandbox', account: '@alice', key_hint: 'svc_test_****Q1w2', created_at: '2026-11-20T12:00:00Z', request_count: 0, revoked_at: '2026-11-22T12:00:00Z' },
    ];
    checkIds(keyColumns(now), rows, 'key_id', []);
  });

  it('agent ls: the handle (what `agent get` and `policy` take) always whole; the ids are in TSV and `agent get` only', () => {
    const rows = [
      { handle: BOT, account_id: id('acct_', 20, 'Q1'), status: 'active', spend_policy_id: id('pol_', 20, 'A1'), public_key: FAR, daily_limit_usdc: '100000.00', spent_today: '99999.99', per_transaction_limit_usdc: '25000.00', hitl_threshold_usdc: '10000.00', held: 12 },
      { handle: '@alice/ops', account_id: id('acct_', 20, 'Z1'), status: 'suspended', spend_policy_id: id('pol_', 20, 'P0'), public_key: OTHER, held: 0 },
    ];
    checkIds(agentColumns(), rows, 'handle', []);
  });
});
