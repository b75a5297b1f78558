// `svc sandbox start|reset|fund|key|trigger|clock`: the local emulator and its admin commands.
// Admin commands reach the sandbox through the `sandbox` profile (or --profile), which
// `svc sandbox start` writes with the URL and the control token.
import { DEFAULT_APPROVAL_WINDOW, DEFAULT_BLOCK_TIME_MS, DEFAULT_HOST, DEFAULT_PORT } from '../../sandbox/defaults.js';
import { formatDuration } from '../../domain/duration.js';
import { Argument, type Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerSandbox(program: Command, deps: ProgramDeps): void {
  const sandbox = program
    .command('sandbox')
    .description('Run the local sandbox (testnet emulator) and manage it: reset, fund, keys, clock, webhook triggers');

  sandbox
    .command('start')
    .description('Start the sandbox on loopback and keep it running until Ctrl-C')
    .option('--port <n>', 'port to listen on; 0 picks a free one', String(DEFAULT_PORT))
    .option('--host <host>', 'loopback address to listen on (127.0.0.1, ::1 or localhost)', DEFAULT_HOST)
    .option('--block-time <duration>', 'time from submission to settlement on the sandbox clock: a duration such as 500ms or 2s; a bare number is seconds', formatDuration(DEFAULT_BLOCK_TIME_MS))
    .option('--approval-window <duration>', 'how long a held agent transaction waits for approval: a duration such as 15m or 90s; a bare number is seconds', DEFAULT_APPROVAL_WINDOW)
    .option('--state <file>', 'database file (default <config dir>/sandbox/state.db; an earlier JSON state file is imported)')
    .option('--ephemeral', 'keep state in memory only; nothing is written')
    .option('-q, --quiet', 'do not log requests (they are logged on stderr when it is a terminal, or with --verbose)')
    .addHelpText('after', helpFooter([
      '',
      'The first start seeds @alice, @acme, @bob and @oldwallet and prints their API keys once.',
      'It writes a "sandbox" profile (current if you have none) that other commands use.',
      '',
      'Examples:',
      '  $ svc sandbox start',
      '  $ svc sandbox start --port 0 --ephemeral --block-time 500ms',
    ]))
    .action(async (_opts, cmd: Command) => {
      const { startSandbox } = await import('./start.js');
      await startSandbox(deps.factory(cmd), cmd.opts());
    });

  sandbox
    .command('stop')
    .description('Stop the sandbox started from this config directory (SIGTERM; waits until it has stopped)')
    .option('--pid <pid>', 'which one, when several are running')
    .addHelpText('after', helpFooter([
      '',
      'An ephemeral sandbox that made its profile current hands back to the profile current before it.',
      '',
      'Examples:',
      '  $ svc sandbox stop',
      '  $ svc sandbox stop --pid 4242',
    ]))
    .action(async (_opts, cmd: Command) => {
      const { stopSandbox } = await import('./stop.js');
      await stopSandbox(deps.factory(cmd), cmd.opts());
    });

  sandbox
    .command('reset')
    .description('Wipe the sandbox and seed it again with new API keys (asks first; --yes without a terminal)')
    .action(async (_opts, cmd: Command) => {
      const { resetSandbox } = await import('./reset.js');
      await resetSandbox(deps.factory(cmd));
    });

  sandbox
    .command('fund <handle> <amount>')
    .description('Credit a sandbox account from the testnet faucet')
    .option('--asset <asset>', 'USDG or USDC', 'USDG')
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc sandbox fund @bob 250', '  $ svc sandbox fund @alice 99.5 --asset USDC']))
    .action(async (handle: string, amount: string, _opts, cmd: Command) => {
      const { fundAccount } = await import('./fund.js');
      await fundAccount(deps.factory(cmd), handle, amount, cmd.opts());
    });

  sandbox
    .command('export')
    .description('Print the whole sandbox state as one JSON document (no amounts, keys or secrets): to diff, or attach to a bug report')
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc sandbox export --json > before.json', '  $ svc sandbox export --json | jq \'.transfers | length\'']))
    .action(async (_opts, cmd: Command) => {
      const { exportSandbox } = await import('./export.js');
      await exportSandbox(deps.factory(cmd));
    });

  const key = sandbox.command('key').description('Create, list and revoke sandbox API keys');
  key
    .command('create')
    .description('Create an API key for a sandbox account; the key is printed once on stdout')
    .requiredOption('--account <handle>', 'the account the key acts for, e.g. @alice')
    .option('--name <name>', 'a name to recognise the key by')
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc sandbox key create --account @acme --name ci', '  $ KEY=$(svc sandbox key create --account @bob)']))
    .action(async (_opts, cmd: Command) => {
      const { createKey } = await import('./key-create.js');
      await createKey(deps.factory(cmd), cmd.opts());
    });
  key
    .command('ls')
    .alias('list')
    .description('List API keys: name, account, last use, request count (never the key)')
    .option('--account <handle>', 'only the keys of this account')
    .action(async (_opts, cmd: Command) => {
      const { listKeys } = await import('./key-ls.js');
      await listKeys(deps.factory(cmd), cmd.opts());
    });
  key
    .command('revoke <key_id>')
    .description('Revoke an API key at once (asks first; --yes without a terminal)')
    .action(async (keyId: string, _opts, cmd: Command) => {
      const { revokeKey } = await import('./key-revoke.js');
      await revokeKey(deps.factory(cmd), keyId);
    });

  sandbox
    .command('trigger')
    .description('Fire a sample event through the webhook engine (signed, delivered and retried like a real one)')
    .addArgument(new Argument('<event>', 'event type').choices(EVENT_TYPES))
    .option('--account <handle>', "the account whose subscriptions get it (default: the profile's account, @alice)")
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc sandbox trigger transfer.confirmed', '  $ svc sandbox trigger agent.transaction.pending_approval --account @acme']))
    .action(async (event: string, _opts, cmd: Command) => {
      const { triggerEvent } = await import('./trigger.js');
      await triggerEvent(deps.factory(cmd), event, cmd.opts());
    });

  const clock = sandbox
    .command('clock')
    .description('Show the sandbox clock, or move it forward (settles what becomes due)')
    .action(async (_opts, cmd: Command) => {
      const { showClock } = await import('./clock.js');
      await showClock(deps.factory(cmd));
    });
  clock
    .command('show')
    .description('Show the sandbox clock and how far it is ahead of real time')
    .action(async (_opts, cmd: Command) => {
      const { showClock } = await import('./clock.js');
      await showClock(deps.factory(cmd));
    });
  clock
    .command('advance <duration>')
    .description('Move the sandbox clock forward, e.g. 90s, 15m, 2h, 1d, 500ms or 1h30m (a bare number is seconds)')
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc sandbox clock advance 2s      # settle pending transfers', '  $ svc sandbox clock advance 1d']))
    .action(async (duration: string, _opts, cmd: Command) => {
      const { advanceClock } = await import('./clock.js');
      await advanceClock(deps.factory(cmd), duration);
    });
}
