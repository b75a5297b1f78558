// A Prompter that answers from a script, for testing a command's dialogue in-process (a real
// terminal is tested in tmux: test/helpers/tmux.ts). Every question is recorded; one more
// question than the script has answers fails the command, as an unexpected prompt should.
import type { Prompter, ReviewChoice, ReviewConfig } from '../../src/io/prompter.js';

export type Answer = boolean | string | ReviewChoice;

export interface ScriptedPrompter extends Prompter {
  /** The questions asked, in order (a review's message). */
  readonly asked: string[];
  /** The review screens shown, in order. */
  readonly reviews: ReviewConfig[];
}

export function scriptedPrompter(answers: readonly Answer[]): ScriptedPrompter {
  const left = [...answers];
  const asked: string[] = [];
  const reviews: ReviewConfig[] = [];
  const next = <T extends Answer>(question: string, is: (a: Answer) => a is T): T => {
    asked.push(question);
    if (left.length === 0) throw new Error(`unexpected question: ${question}`);
    const a = left.shift()!;
    if (!is(a)) throw new Error(`the script answers ${JSON.stringify(a)} to: ${question}`);
    return a;
  };
  const isBool = (a: Answer): a is boolean => typeof a === 'boolean';
  const isText = (a: Answer): a is string => typeof a === 'string';
  return {
    asked,
    reviews,
    confirm: async (message) => next(message, isBool),
    secret: async (message) => next(message, isText),
    text: async (message) => next(message, isText),
    review: async (config) => {
      reviews.push(config);
      return next(config.message, (a): a is ReviewChoice => typeof a === 'string') as ReviewChoice;
    },
  };
}
