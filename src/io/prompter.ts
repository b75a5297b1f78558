// Every question svc asks a person goes through one Prompter, so a command's dialogue can be
// tested with a scripted one (test/helpers/prompter.ts) instead of a pseudo-terminal, and the
// rules for asking at all (a terminal on both ends, no --no-input) are checked by the callers
// before they ask (io.canPrompt). The default one draws with @inquirer on stderr, loaded only
// when a question is asked.
import type { IOStreams } from './streams.js';

/**
 * `expired`: passed over (s) once its window had closed. `elsewhere`: it was decided elsewhere
 * while on screen (ReviewScreen.ended): the prompt closed by itself, and no key decided anything.
 */
export type ReviewChoice = 'approve' | 'reject' | 'skip' | 'quit' | 'expired' | 'elsewhere';

/** What a review prompt draws, as it is now. */
export interface ReviewScreen {
  message: string;
  details: string[];
  /** One line under the keys (`reconnecting…`), when there is something to say. */
  status?: string;
  /**
   * Set once it is no longer pending (`approved elsewhere`): the prompt closes with these words
   * (its answer is `elsewhere`), and a key pressed meanwhile decides nothing.
   */
  ended?: string;
}

/** One held transaction to decide with one key, its time left ticking (pending review). */
export interface ReviewConfig {
  /** The question and the details when it is first drawn. */
  message: string;
  details: string[];
  /** When the window closes (ms since the epoch; NaN when the service did not say). */
  expiresAtMs: number;
  /** The service's clock. */
  now: () => number;
  /** The screen as it is now, read at each redraw (every second): counts and times that move. */
  live?: () => ReviewScreen;
  /** Redraw at once when what live() says changes (the caller calls the function it is given); returns the unsubscribe. */
  subscribe?: (redraw: () => void) => () => void;
  /**
   * For this long after it is drawn, `a` and `r` do nothing (s and q work): after the screen
   * moved on by itself, a key meant for the one before must not decide this one.
   */
  holdKeysMs?: number;
}

export interface AskOptions {
  /** Aborting it (Ctrl-C while the prompt is up) rejects the question. */
  signal?: AbortSignal;
}

export interface Prompter {
  /** A yes/no question; the answer when Enter alone is pressed is `defaultYes` (default No). */
  confirm(message: string, opts?: AskOptions & { defaultYes?: boolean }): Promise<boolean>;
  /** Hidden input (a key), trimmed. */
  secret(message: string, opts?: AskOptions): Promise<string>;
  /** A line of text, trimmed ('' when Enter alone is pressed). */
  text(message: string, opts?: AskOptions): Promise<string>;
  /** One key per choice for a held transaction, with a countdown. */
  review(config: ReviewConfig, opts?: AskOptions): Promise<ReviewChoice>;
}

/** The terminal prompter: questions on stderr, answers from stdin. */
export function terminalPrompter(io: IOStreams): Prompter {
  const context = (opts?: AskOptions) => ({ input: io.stdin, output: io.stderr, ...(opts?.signal ? { signal: opts.signal } : {}) });
  return {
    async confirm(message, opts) {
      const { confirm } = await import('./inquirer-prompts.js');
      return confirm({ message, default: opts?.defaultYes ?? false }, context(opts));
    },
    async secret(message, opts) {
      const { password } = await import('./inquirer-prompts.js');
      return (await password({ message, mask: '*' }, context(opts))).trim();
    },
    async text(message, opts) {
      const { input } = await import('./inquirer-prompts.js');
      return (await input({ message }, context(opts))).trim();
    },
    async review(config, opts) {
      const { reviewPrompt } = await import('./review-prompt.js');
      return reviewPrompt(config, context(opts));
    },
  };
}
