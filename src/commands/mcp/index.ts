// `svc mcp`: an MCP server over stdio for one profile, so that an AI agent spends under its
// policy while a human approves what is above its threshold (docs/mcp.md). Registration is
// cheap: the MCP SDK loads only when this command runs (serve.ts).
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerMcp(program: Command, deps: ProgramDeps): void {
  program
    .command('mcp')
    .description("Serve the profile's wallet to an AI agent over MCP (stdio, or HTTP with --http): send, read, wait for a human's decision; never approve")
    .option('--read-only', 'offer the read tools only (no send_transfer); the only way to serve a key that is not an agent\'s')
    .option('--http <[host:]port>', 'serve over Streamable HTTP on loopback instead of stdio (port 0: any free one), at a secret URL printed once on stderr')
    .option('--max-total <amount>', 'a budget for this session on top of the spend policy: sends (and held sends) past it are refused before any request')
    .option('--confirm-sends', 'ask the person at the host (MCP elicitation: recipient, amount, asset, memo; yes/no) before each send; a host that cannot ask has every send refused')
    .addHelpText('after', helpFooter([
      '',
      'stdout carries the MCP stream only; every tool call is logged on stderr (tool, outcome, ids;',
      'never an amount or a key). The key and decryption key come from the profile (--profile, else',
      'the current one), never from the MCP client\'s arguments or environment. Money moves only with',
      'an agent\'s key; any other key needs --read-only (exit 2 otherwise).',
      '',
      'With --http it serves MCP hosts that connect by URL: on loopback only, at a URL printed once on',
      'stderr that is the credential (every other path answers 404); several sessions share the tools',
      'and the --max-total budget; Ctrl-C or SIGTERM stops it (exit 130).',
      '',
      'Examples:',
      '  $ svc mcp --profile bot',
      '  $ svc mcp --profile bot --max-total 200',
      '  $ svc mcp --profile bot --confirm-sends',
      '  $ svc mcp --profile alice --read-only',
      '  $ svc mcp --profile bot --http 127.0.0.1:0',
    ]))
    .action(async (opts: { readOnly?: boolean; maxTotal?: string; confirmSends?: boolean; http?: string }, cmd: Command) => {
      const { serveMcp } = await import('./serve.js');
      await serveMcp(deps.factory(cmd), opts);
    });
}
