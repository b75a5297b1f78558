// `svc api <METHOD> <path>`: a raw, authenticated request. Registration only.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerApi(program: Command, deps: ProgramDeps): void {
  program
    .command('api <method> <path>')
    .description('Send an authenticated request to the service and print the JSON answer')
    .option('-d, --data <json>', 'request body: JSON text, @FILE to read a file, or - to read stdin')
    .option('-q, --query <key=value>', 'query parameter (repeatable)', collect)
    .option('--idempotency-key <key>', 'Idempotency-Key of a POST (one is generated otherwise)')
    .addHelpText('after', helpFooter([
      '',
      'The path is relative to the base URL and starts with /. The answer is printed as JSON on',
      'stdout (indented on a terminal). An error answer exits with the usual exit code and prints',
      'one error line on stderr (with --json: one {"error": {...}} object on stderr, nothing on',
      'stdout). GETs and keyed POSTs are retried on 429/5xx.',
      'With a live key, any method but GET asks for confirmation (or needs --yes).',
      '',
      'Examples:',
      '  $ svc api GET /v1/accounts/me',
      '  $ svc api GET /v1/transfers --query status=pending --query limit=5',
      `  $ svc api POST /v1/transfers --data '{"to":"@acme","amount":"1.50"}'`,
      '  $ svc api POST /v1/webhooks --data @webhook.json',
    ]))
    .action(async (method: string, path: string, _opts, cmd: Command) => {
      const { runApi } = await import('./run.js');
      await runApi(deps.factory(cmd), method, path, cmd.opts());
    });
}
