// `svc transfer send|get|ls`: registration only; the logic is imported when a verb runs.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../cli/deps.js';

export function registerTransfer(program: Command, deps: ProgramDeps): void {
  const transfer = program.command('transfer').description('Send transfers and follow their status');

  transfer
    .command('send <to> <amount>')
    .description('Send <amount> of an asset to an @handle or 0x address (confidential unless --no-confidential)')
    .option('--asset <asset>', 'asset to send (default USDG)')
    .option('--memo <text>', 'memo, encrypted and visible only to sender and receiver')
    .option('--no-confidential', 'send a standard transfer: the amount becomes PUBLIC on chain')
    .option('--idempotency-key <key>', 'reuse a key to retry a transfer safely (a new one is generated and printed otherwise)')
    .option('--wait', 'wait until the transfer is confirmed or failed')
    .option('--timeout-wait <duration>', 'how long --wait waits: a duration such as 90s or 5m (default 2m)')
    .addHelpText('after', [
      '',
      'The amount is a decimal string with at most 6 decimals (USDG, USDC); it is never printed',
      'back. With a live key the command asks for confirmation (or needs --yes without a terminal).',
      'With --wait, Ctrl-C stops the waiting, not the transfer (exit 130): follow it again with',
      '`svc transfer get <id> --wait`.',
      '',
      'Examples:',
      '  $ svc transfer send @acme 25.50',
      '  $ svc transfer send 0x1111111111111111111111111111111111111111 10 --asset USDC --wait',
      '  $ svc transfer send @acme 5 --idempotency-key order-1234 --json | jq -r .transfer_id',
      '',
      'Exit codes: 0 sent, 1 failed or recipient not confidential-ready, 2 bad input, 3 unauthorized',
      'or KYC required, 4 recipient not found, 5 idempotency key reused with another body,',
      '6 insufficient balance, 7 network or --wait timeout, 8 held for approval.',
    ].join('\n'))
    .action(async (to: string, amount: string, _opts, cmd: Command) => {
      const { sendTransfer } = await import('./send.js');
      await sendTransfer(deps.app(cmd), to, amount, cmd.opts());
    });

  transfer
    .command('get <id>')
    .description('Show one transfer; its amount and memo are decrypted locally when a decryption key is set')
    .option('--wait', 'wait until the transfer is confirmed or failed')
    .option('--timeout-wait <duration>', 'how long --wait waits: a duration such as 90s or 5m (default 2m)')
    .option('--decrypt', 'with --json, add amount and memo, decrypted locally')
    .addHelpText('after', [
      '',
      'The amount and memo are decrypted locally when a decryption key is configured',
      '(profile or SVC_DECRYPTION_KEY), and shown as "encrypted" otherwise.',
      '',
      'Examples:',
      '  $ svc transfer get tr_1a2b3c',
      '  $ svc transfer get tr_1a2b3c --wait --json | jq -r .status',
    ].join('\n'))
    .action(async (id: string, _opts, cmd: Command) => {
      const { getTransfer } = await import('./get.js');
      await getTransfer(deps.app(cmd), id, cmd.opts());
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
    .addHelpText('after', [
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
    ].join('\n'))
    .action(async (_opts, cmd: Command) => {
      const { listTransfers } = await import('./ls.js');
      await listTransfers(deps.app(cmd), cmd.opts());
    });
}
