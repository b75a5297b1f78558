// `svc webhook create|ls|rm|deliveries|replay|verify|listen`.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { helpFooter } from '../../runtime/help-text.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
/** verify and listen judge a timestamp alike. */
const TOLERANCE_HELP = 'reject a body whose timestamp is further than this from now: a duration such as 5m or 90s; a bare number is seconds (0 disables)';

export function registerWebhook(program: Command, deps: ProgramDeps): void {
  const webhook = program.command('webhook').description('Webhook subscriptions, delivery logs, signature checks and a local listener');

  webhook
    .command('create <url>')
    .description('Subscribe a URL (https, or http to a loopback host) to events; the secret is shown once')
    .requiredOption('--events <list>', `comma-separated event types, or "all" (${EVENT_TYPES.join(', ')})`, collect)
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc webhook create https://hooks.example.com/svc --events transfer.confirmed,transfer.failed', '  $ svc webhook create https://hooks.example.com/svc --events all --json | jq -r .secret']))
    .action(async (url: string, opts: { events: string[] }, cmd: Command) => {
      const { createWebhook } = await import('./create.js');
      await createWebhook(deps.factory(cmd), url, opts.events);
    });

  webhook
    .command('ls')
    .alias('list')
    .description('List subscriptions (secrets are never shown again)')
    .action(async (_o, cmd: Command) => {
      const { listWebhooks } = await import('./ls.js');
      await listWebhooks(deps.factory(cmd));
    });

  webhook
    .command('rm <webhook_id>')
    .alias('delete')
    .description('Delete a subscription at once, pending retries included')
    .action(async (id: string, _o, cmd: Command) => {
      const { removeWebhook } = await import('./rm.js');
      await removeWebhook(deps.factory(cmd), id);
    });

  webhook
    .command('deliveries <webhook_id>')
    .description('Delivery attempts: event, attempt, status code, retry count, next retry')
    .action(async (id: string, _o, cmd: Command) => {
      const { listDeliveries } = await import('./deliveries.js');
      await listDeliveries(deps.factory(cmd), id);
    });

  webhook
    .command('replay <webhook_id> <event_id>')
    .description('Send one event to the subscription again')
    .action(async (id: string, eventId: string, _o, cmd: Command) => {
      const { replayEvent } = await import('./replay.js');
      await replayEvent(deps.factory(cmd), id, eventId);
    });

  webhook
    .command('verify')
    .description('Check a delivery signature over the exact payload bytes: exit 0 valid, 1 not')
    .option('--secret-env <VAR>', 'name of the environment variable holding the signing secret')
    .option('--secret-file <file>', 'a file whose first line is the signing secret')
    .requiredOption('--signature <hex>', 'the X-Service-Signature header value')
    .option('--payload-file <file>', 'the raw body (default: stdin)')
    .option('--tolerance <duration>', TOLERANCE_HELP, '5m')
    .addHelpText('after', helpFooter([
      '',
      'The secret never goes on the command line: name a variable (--secret-env) or a file (--secret-file).',
      'With a tolerance (default 5m) the body must carry a `timestamp` within it of now.',
      '',
      'Examples:',
      '  $ read -rs SVC_WEBHOOK_SECRET && export SVC_WEBHOOK_SECRET   # typed, not in shell history',
      '  $ svc webhook verify --secret-env SVC_WEBHOOK_SECRET --signature "$SIG" < body.json && echo ok',
      '  $ svc webhook verify --secret-file ~/.config/myapp/webhook-secret --signature "$SIG" --payload-file body.json',
    ]))
    .action(async (opts, cmd: Command) => {
      const { verifyCommand } = await import('./verify.js');
      await verifyCommand(deps.factory(cmd), opts);
    });

  webhook
    .command('listen')
    .description('Receive events locally: print each one, check its signature, forward it and answer with your app\'s status')
    .option('--port <n>', 'port to listen on (default: the kept subscription\'s, else any free one; 0 picks a free one)')
    .option('--events <list>', 'event types to subscribe to (default: all)', collect)
    .option('--forward-to <url>', 'forward each verified delivery (exact body and headers) to this URL; its status is the service\'s answer')
    .option('--forward-unverified', 'forward deliveries that fail verification too (debugging only; a warning says so)')
    .option('--temporary', 'a subscription for this run only (a new secret), deleted when it stops; by default one is kept per profile and forward URL')
    .option('--print-secret', 'kept for old scripts: the signing secret is always printed whole on stderr')
    .option('--no-subscribe', 'do not subscribe; only receive (use with --secret-env)')
    .option('--secret-env <VAR>', 'verify with the secret in this variable instead of the subscription\'s')
    .option('--secret-file <file>', 'verify with the secret on the first line of this file')
    .option('--tolerance <duration>', TOLERANCE_HELP, '5m')
    .addHelpText('after', helpFooter([
      '',
      'The signing secret is printed whole on stderr at start, and stays the same from run to run for the same',
      'profile and --forward-to (the subscription is kept; the next run takes it over). stdout carries only deliveries.',
      '',
      'Examples:',
      '  $ svc webhook listen --forward-to http://localhost:3000/webhooks',
      '  $ svc webhook listen --json --events transfer.confirmed | jq .event',
    ]))
    .action(async (opts, cmd: Command) => {
      const { listen } = await import('./listen.js');
      await listen(deps.factory(cmd), opts);
    });
}
