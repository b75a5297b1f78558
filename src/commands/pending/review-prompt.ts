// A one-key prompt for a held transaction with a time-left line that ticks every second.
import { createPrompt, useEffect, useKeypress, usePrefix, useState } from '@inquirer/core';
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

  if (answer) return `${prefix} ${config.message} ${answer}`;
  const left = timeLeft(config.expiresAt, config.skewMs, now);
  return [
    `${prefix} ${config.message}`,
    ...config.details.map((d) => `  ${d}`),
    `  time left    ${left}`,
    '  [a] approve  [r] reject  [s] skip  [q] quit',
  ].join('\n');
});
