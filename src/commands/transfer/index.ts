// `svc transfer send|batch|get|ls`: registration only; the logic is imported when a verb runs.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerTransfer(program: Command, deps: ProgramDeps): void {
  const transfer = program.command('transfer').description('Send transfers and follow their status');

  transfer
    .command('send <to> <amount>')
    .description('Send <amount> of an asset to an @handle or 0x address (confidential unless --no-confidential)')
    .option('--asset <asset>', 'asset to send (default USDG)')
    .option('--memo <text>', 'memo, encrypted and visible only to sender and receiver')
    .option('--no-confidential', 'send a standard transfer: the amount becomes PUBLIC on chain')
    .option('--idempotency-key <key>', 'reuse a key to retry a transfer safely (a new one is generated and printed otherwise)')
    .option('--wait', 'wait until the transfer is confirmed or failed (held for approval: first for the human\'s decision)')
    .option('--timeout-wait <duration>', 'how long --wait waits: a duration such as 90s or 5m; a bare number is seconds (default 2m; held: until decided or expired, then 2m)')
    .option('--dry-run', "check everything and, for an agent's key, evaluate its spend policy locally; send nothing")
    .addHelpText('after', helpFooter([
      '',
      'The amount is a decimal string with at most 6 decimals (USDG, USDC); it is never printed',
      'back. With a live key the command asks for confirmation (or needs --yes without a terminal).',
      'With --wait, Ctrl-C stops the waiting, not the transfer (exit 130): follow it again with',
      '`svc transfer get <id> --wait`. Any failure after the service accepted the transfer names',
      'its id and idempotency key.',
      'With an agent\'s key a transfer above its approval threshold is held (exit 8); with --wait it',
      'waits for a human to decide, then for settlement: exit 0 only when the money moved, 6 rejected,',
      '5 expired, 7 --timeout-wait ran out (docs/agents.md, "Waiting for a human from a script").',
      '',
      'The service remembers an idempotency key for 24 hours; svc remembers every key it sent for',
      '90 days (in the config directory, no amounts): the same command run again under a key already',
      'accepted prints that transfer and sends nothing (docs/idempotency.md).',
      'A 0x address in mixed case must match its EIP-55 checksum (a mismatch is a typo: refused).',
      '',
      '--dry-run validates the request and reads (never sends): with an agent\'s key it evaluates the',
      'spend policy as the service would (allow / hold / deny, with the rule trace), then the balance',
      'where a decryption key opens it. It exits as the real send would: 0, 8 held, 6 denied.',
      '',
      'Examples:',
      '  $ svc transfer send @acme 25.50',
      '  $ svc --profile bot transfer send @acme 75 --dry-run',
      '  $ svc transfer send 0x1111111111111111111111111111111111111111 10 --asset USDC --wait',
      '  $ svc transfer send @acme 5 --idempotency-key order-1234 --json | jq -r .transfer_id',
      '  $ svc transfer send @acme 1200 --idempotency-key "rent-$(date +%Y-%m)"   # once a month',
      '',
      'Exit codes: 0 sent, 1 failed or recipient not confidential-ready, 2 bad input, 3 unauthorized',
      'or KYC required, 4 recipient not found, 5 idempotency key reused with another body (or an',
      'earlier try under it lost its answer over 23 hours ago),',
      '6 insufficient balance or policy violation, 7 network or --wait timeout, 8 held for approval.',
    ]))
    .action(async (to: string, amount: string, _opts, cmd: Command) => {
      const { sendTransfer } = await import('./send.js');
      await sendTransfer(deps.factory(cmd), to, amount, cmd.opts());
    });

  transfer
    .command('batch <file>')
    .description('Send many transfers from a CSV or JSON Lines file ("-": stdin); a rerun never pays a row twice')
    .option('--jsonl', 'the input is JSON Lines (default: by the file name, .jsonl or .ndjson; else CSV)')
    .option('--batch-id <name>', 'name the batch (default: the file\'s name, "stdin" for -): a rerun under the same name never pays a row twice')
    .option('--new-batch', 'start the named batch anew: every row is sent again, even those an earlier run had accepted')
    .option('--dry-run', 'check every row (and, with an agent key, the spend policy) and send nothing')
    .option('--skip-invalid', 'send the valid rows even when some are invalid (they are reported as skipped)')
    .option('--concurrency <n>', 'transfers in flight at once (1 to 32)', '4')
    .option('--out <file>', 'write one result per row to this .csv or .jsonl file')
    .option('--no-confidential', 'send standard transfers: the amounts become PUBLIC on chain')
    .addHelpText('after', helpFooter([
      '',
      'The file has a header line: to,amount[,asset][,memo][,ref] (JSON Lines: the same fields, amounts',
      'as strings). Every row is checked before any is sent; nothing is sent if one is invalid.',
      'A batch is its name (the file\'s name, or --batch-id), not its content: every outcome is recorded',
      'in the config directory under it, and running the same command again, after a failure, Ctrl-C,',
      'a crash or an edit of the file (a failed row corrected), sends only the rows not yet accepted.',
      'A row with a ref is its ref; a row without one is its recipient, amount, asset and memo (two',
      'identical rows are two payouts). --new-batch pays every row again, on purpose.',
      '',
      'Examples:',
      '  $ svc transfer batch payouts.csv --dry-run',
      '  $ svc transfer batch payouts.csv --out results.csv',
      '  $ generate-payouts | svc transfer batch - --jsonl --batch-id payroll-2026-11 --json',
      '',
      'Exit codes: 0 every row sent, 8 some held for approval and none failed; otherwise the most',
      'severe failure: 7 network (outcome unknown: run again), 3 key refused, 6 balance or policy,',
      '5 conflict, 4 recipient not found, 1 other; 2 invalid rows (nothing sent), 130 interrupted.',
    ]))
    .action(async (file: string, _opts, cmd: Command) => {
      const { runBatch } = await import('./batch/run.js');
      await runBatch(deps.factory(cmd), file, cmd.opts());
    });

  transfer
    .command('get <id>')
    .description('Show one transfer; its amount and memo are decrypted locally when a decryption key is set')
    .option('--wait', 'wait until the transfer is confirmed or failed')
    .option('--timeout-wait <duration>', 'how long --wait waits: a duration such as 90s or 5m; a bare number is seconds (default 2m)')
    .option('--decrypt', 'with --json, add amount and memo, decrypted locally')
    .addHelpText('after', helpFooter([
      '',
      'The amount and memo are decrypted locally when a decryption key is configured',
      '(profile or SVC_DECRYPTION_KEY), and shown as "encrypted" otherwise.',
      '',
      'Examples:',
      '  $ svc transfer get tr_1a2b3c',
      '  $ svc transfer get tr_1a2b3c --wait --json | jq -r .status',
    ]))
    .action(async (id: string, _opts, cmd: Command) => {
      const { getTransfer } = await import('./get.js');
      await getTransfer(deps.factory(cmd), id, cmd.opts());
    });

  transfer
    .command('ls')
    .alias('list')
    .description('List transfers, newest first')
    .option('--status <status>', 'only pending, confirmed or failed transfers')
    .option('--since <time>', 'only transfers after this ISO 8601 time (UTC unless an offset is given)')
    .option('--until <time>', 'only transfers before this ISO 8601 time')
    .option('--limit <n>', 'page size, 1 to 100 (default 20; 100 with --all)')
    .option('--offset <n>', 'skip this many transfers')
    .option('--all', 'follow every page (streams; --json still prints one array)')
    .option('--jsonl', 'print one JSON object per line (JSON Lines) instead of one array; implies --json')
    .option('--decrypt', 'with --json or --jsonl, add amount and memo, decrypted locally')
    .addHelpText('after', helpFooter([
      '',
      'Output: a table on a terminal, tab-separated values with a header when piped, one JSON array with',
      '--json, one JSON object per line with --jsonl. Rows are written as pages arrive.',
      'AMOUNT is decrypted locally with the decryption key, or shows "encrypted". JSON output has no',
      'amount unless --decrypt asks for it (a key operation per row).',
      '',
      'Examples:',
      '  $ svc transfer ls --status pending',
      '  $ svc transfer ls --since 2024-05-01 --all | cut -f1,2',
      '  $ svc transfer ls --all --json | jq length',
      '  $ svc transfer ls --all --jsonl | jq -r .transfer_id',
    ]))
    .action(async (_opts, cmd: Command) => {
      const { listTransfers } = await import('./ls.js');
      await listTransfers(deps.factory(cmd), cmd.opts());
    });
}
