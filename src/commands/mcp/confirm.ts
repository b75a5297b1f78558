// `svc mcp --confirm-sends`: before each send_transfer that would send, the person at the host is
// asked through the host's form elicitation (recipient, amount, asset, memo; a yes/no). Only an
// accepted "yes" lets the send go; anything else (declined, cancelled, "no", no answer in
// CONFIRM_TIMEOUT_MS, the host withdrawing the call) sends nothing and is a tool error the model
// can relay. A host that cannot ask (no form elicitation at initialize) has every send refused:
// fail closed. The answer is the host's and can be automated by it: it is never the owner's
// approval, which stays on the service (docs/mcp.md).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { TransferRequest } from '../../core/request.js';
import { CliError, UsageError } from '../../errors.js';
import type { IOStreams } from '../../io/streams.js';
import { sanitize } from '../../io/sanitize.js';

/** What the model is told (the server's instructions, send_transfer's description) under --confirm-sends. */
export const CONFIRM_NOTE =
  ' Each send is first shown to the person at the host (svc mcp --confirm-sends), who may decline it: a declined or unanswered send is the error send_not_confirmed and nothing is sent. ' +
  'Tell the user; do not send it again unless they ask.';

/** How long the question waits for the person's answer: then nothing is sent. */
export const CONFIRM_TIMEOUT_MS = 5 * 60_000;

/** The part of the SDK's Server the question needs. */
export type Asker = Pick<Server, 'elicitInput' | 'getClientCapabilities' | 'getClientVersion'>;

/** What the call being answered brings: the host withdrawing it, and its id (an HTTP host's answer stream). */
export interface CallExtra {
  signal: AbortSignal;
  requestId: string | number;
}

/** Asks before a send; resolves only on a "yes", throws a CliError (nothing sent) otherwise. */
export type Confirm = (req: TransferRequest) => Promise<void>;

/** Why a send was not confirmed: the `reason` of `send_not_confirmed`. */
type Reason = 'declined' | 'answered_no' | 'cancelled' | 'no_answer';

/** The field of the form: a yes/no, "no" unless the person changes it. */
export const CONFIRM_FIELD = 'send';

/** `--confirm-sends` with `--read-only` is refused: there is no send to confirm (exit 2). */
export function checkConfirmOptions(opts: { readOnly?: boolean; confirmSends?: boolean }): void {
  if (opts.readOnly && opts.confirmSends) {
    throw new UsageError('--confirm-sends asks before each send_transfer, and --read-only offers none: there is nothing to confirm', 'drop one of --confirm-sends and --read-only', 'usage');
  }
}

/** True when the host declared form elicitation (an empty `elicitation: {}` means form, as the spec keeps it). */
export function canAsk(server: Pick<Server, 'getClientCapabilities'>): boolean {
  const e = server.getClientCapabilities()?.elicitation;
  if (!e) return false;
  return e.form !== undefined || e.url === undefined;
}

/** The host as its clientInfo names it, sanitized and short. */
export function hostName(server: Pick<Server, 'getClientVersion'>): string {
  const v = server.getClientVersion();
  if (!v) return 'an unnamed host';
  return `"${sanitize(`${v.name} ${v.version}`.slice(0, 80))}"`;
}

/** The one stderr line at start, once the host's capabilities are known (after initialize). */
export function confirmNotice(server: Asker): string {
  return canAsk(server)
    ? `mcp: --confirm-sends: each send_transfer asks the person at host ${hostName(server)} first (form elicitation)\n`
    : `mcp: --confirm-sends: host ${hostName(server)} did not declare form elicitation: every send_transfer is refused, nothing is sent (confirmation_unavailable)\n`;
}

/** Says the notice on stderr once the client has initialized. */
export function announceConfirmation(server: Server, io: IOStreams): void {
  server.oninitialized = () => io.err(confirmNotice(server));
}

/** The question the person sees: who asks, what would be sent, and what a "yes" is not. */
export function confirmMessage(req: TransferRequest, agent: string): string {
  return [
    `The AI agent using svc (${sanitize(agent)}) wants to send a transfer:`,
    `  to: ${sanitize(req.to)}`,
    `  amount: ${req.amount} ${req.asset}`,
    ...(req.memo !== undefined ? [`  memo (as the agent wrote it): ${sanitize(req.memo)}`] : []),
    'Send it? Nothing is sent unless you answer yes. Where the agent\'s spend policy needs the account owner\'s approval, that is still asked for on the service.',
  ].join('\n');
}

const REQUESTED_SCHEMA = {
  type: 'object' as const,
  properties: {
    [CONFIRM_FIELD]: { type: 'boolean' as const, title: 'Send this transfer', description: 'yes sends it now; no sends nothing', default: false },
  },
  required: [CONFIRM_FIELD],
};

/** The question for one call: asked of `server` as part of the call `extra` answers. */
export function confirmer(server: Asker, extra: CallExtra, agent: string): Confirm {
  return async (req) => {
    if (!canAsk(server)) throw unavailable(server);
    let answer;
    try {
      answer = await server.elicitInput(
        { mode: 'form', message: confirmMessage(req, agent), requestedSchema: REQUESTED_SCHEMA },
        { signal: extra.signal, timeout: CONFIRM_TIMEOUT_MS, relatedRequestId: extra.requestId },
      );
    } catch {
      // No answer in time, the call withdrawn by the host, the session ended, or an answer off the form.
      throw notConfirmed('no_answer');
    }
    if (answer.action === 'decline') throw notConfirmed('declined');
    if (answer.action === 'cancel') throw notConfirmed('cancelled');
    if (answer.content?.[CONFIRM_FIELD] !== true) throw notConfirmed('answered_no');
  };
}

const WHAT: Record<Reason, string> = {
  declined: 'the person at the host declined this transfer',
  answered_no: 'the person at the host answered no to this transfer',
  cancelled: 'the person at the host dismissed the question about this transfer',
  no_answer: `the person at the host did not answer the question about this transfer (within ${CONFIRM_TIMEOUT_MS / 60_000} minutes, or before the host withdrew the call)`,
};

/** The outcome word of the stderr line (results.ts): never an amount or a memo. */
const LOGGED: Record<Reason, string> = { declined: 'declined', answered_no: 'declined', cancelled: 'cancelled', no_answer: 'unanswered' };

function notConfirmed(reason: Reason): CliError {
  const relay = reason === 'no_answer'
    ? 'The person at the host did not confirm this transfer in time; nothing was sent. Tell the user; send it again only if they ask.'
    : 'The person at the host declined this transfer; nothing was sent. Tell the user; do not retry unless they ask.';
  return new CliError('cancelled', 'send_not_confirmed', `${WHAT[reason]} (svc mcp --confirm-sends); nothing was sent`, {
    details: { reason, relay, outcome: LOGGED[reason] },
  });
}

function unavailable(server: Asker): CliError {
  return new CliError('refused', 'confirmation_unavailable', `svc mcp --confirm-sends asks the person at the host before each send, and host ${hostName(server)} cannot ask (it declared no form elicitation); nothing was sent`, {
    hint: 'use a host that supports MCP elicitation, or start svc mcp without --confirm-sends (the spend policy and the owner\'s approval still apply)',
    details: {
      relay: 'This MCP host cannot ask its user to confirm a transfer, and this svc mcp server requires that confirmation (--confirm-sends): nothing was sent. Tell the user; do not retry.',
      outcome: 'refused',
    },
  });
}
