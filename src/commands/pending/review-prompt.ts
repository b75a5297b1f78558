// A one-key prompt for a held transaction with a time-left line that ticks every second.
// What it draws comes from the agent and the service: the message and every detail line are
// sanitised here, so a caller cannot forget it (sanitising twice changes nothing).
import { createPrompt, useEffect, useKeypress, usePrefix, useState } from '@inquirer/core';
import { sanitize } from '../../io/sanitize.js';
import { timeLeft } from './queue.js';

export type ReviewChoice = 'approve' | 'reject' | 'skip' | 'quit';

export interface ReviewConfig {
  message: string;
  details: string[];
  expiresAt: string;
  skewMs: number;
}

const KEYS: Record<string, ReviewChoice> = { a: 'approve', r: 'reject', s: 'skip', q: 'quit' };

export const reviewPrompt = createPrompt<ReviewChoice, ReviewConfig>((config, done) => {
  const [now, setNow] = useState(Date.now());
  const [answer, setAnswer] = useState<ReviewChoice | undefined>(undefined);
  const prefix = usePrefix({});

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  useKeypress((key) => {
    const choice = KEYS[key.name];
    if (choice) {
      setAnswer(choice);
      done(choice);
    }
  });

  const message = sanitize(config.message);
  if (answer) return `${prefix} ${message} ${answer}`;
  const left = timeLeft(config.expiresAt, config.skewMs, now);
  return [
    `${prefix} ${message}`,
    ...config.details.map((d) => `  ${sanitize(d)}`),
    `  time left    ${left}`,
    '  [a] approve  [r] reject  [s] skip  [q] quit',
  ].join('\n');
});
