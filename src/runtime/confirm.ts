// Confirmation before an action that cannot be taken back: a prompt defaulting to No on a
// terminal; without one (or with --no-input) --yes is required, else nothing is sent (exit 2,
// confirmation_required). Money-moving and policy-changing commands ask only with a live key.
import type { Environment } from '../domain/api-key.js';
import { CancelledError, ConfirmationRequiredError } from '../errors.js';
import type { Prompter } from '../io/prompter.js';
import type { IOStreams } from '../io/streams.js';

export interface Confirm {
  /**
   * Before a money-moving or policy-changing request: asks only with a live key. A question that
   * restates an amount passes `withoutAmount`: the wording of the confirmation_required error,
   * which may end up in a log (DESIGN.md: no amount in errors).
   */
  live(message: string, withoutAmount?: string): Promise<void>;
  /** Before a destructive action, whatever the key. */
  destructive(message: string, cancelled?: string): Promise<void>;
}

export interface ConfirmDeps {
  io: IOStreams;
  /** --yes */
  yes: boolean;
  prompter: Prompter;
  /** The environment of the key in use (resolved only when asked). */
  environment: () => Promise<Environment>;
}

const NOTHING_SENT = 'Cancelled; nothing was sent.';

export function confirmer(deps: ConfirmDeps): Confirm {
  const ask = async (message: string, cancelled: string, withoutAmount?: string): Promise<void> => {
    if (deps.yes) return;
    if (!deps.io.canPrompt) throw new ConfirmationRequiredError((withoutAmount ?? message).replace(/\?$/, ''));
    if (!(await deps.prompter.confirm(message))) throw new CancelledError(cancelled);
  };
  return {
    async live(message, withoutAmount) {
      if ((await deps.environment()) === 'live') await ask(message, NOTHING_SENT, withoutAmount);
    },
    destructive: (message, cancelled = NOTHING_SENT) => ask(message, cancelled),
  };
}
