// A one-key prompt for a held transaction (no Enter), redrawn every second: the time left and
// the rest of the screen (config.live: the queue count, the time since the request, a status
// line) by the service's clock. Once the window has closed it says so and offers only skip and
// quit: the service refuses approve and reject after expires_at (409 transaction_expired).
// What it draws comes from the agent and the service: the message and every detail line are
// sanitised here, so a caller cannot forget it (sanitising twice changes nothing).
import { createPrompt, useEffect, useKeypress, usePrefix, useState } from '@inquirer/core';
import { sanitize } from './sanitize.js';
import { timeLeft } from './time.js';
import type { ReviewChoice, ReviewConfig } from './prompter.js';

const KEYS: Record<string, ReviewChoice> = { a: 'approve', r: 'reject', s: 'skip', q: 'quit' };
const SHOWN: Record<ReviewChoice, string> = { approve: 'approve', reject: 'reject', skip: 'skip', quit: 'quit', expired: 'skip (expired)' };

export const reviewPrompt = createPrompt<ReviewChoice, ReviewConfig>((config, done) => {
  // A new object at every tick, so the prompt is drawn again even when the clock has not moved
  // (what config.live says may have: the count, the status line).
  const [clock, setClock] = useState({ now: config.now() });
  const now = clock.now;
  const setNow = (ms: number) => setClock({ now: ms });
  const [answer, setAnswer] = useState<ReviewChoice | undefined>(undefined);
  const prefix = usePrefix({});

  useEffect(() => {
    const timer = setInterval(() => setNow(config.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  const expired = !Number.isNaN(config.expiresAtMs) && config.expiresAtMs <= now;

  useKeypress((key) => {
    if (key.ctrl || answer) return;
    let choice = KEYS[key.name];
    // Checked at the key press, not at the last tick: the window may have closed in between.
    const closed = !Number.isNaN(config.expiresAtMs) && config.expiresAtMs <= config.now();
    if (closed && (choice === 'approve' || choice === 'reject')) {
      setNow(config.now()); // too late: draw it expired, decide nothing
      return;
    }
    if (closed && choice === 'skip') choice = 'expired';
    if (choice) {
      setAnswer(choice);
      done(choice);
    }
  });

  // Read at every redraw (the tick below, a key): the count, the times and the status move.
  const screen = config.live?.() ?? { message: config.message, details: config.details };
  const message = sanitize(screen.message);
  if (answer) return `${prefix} ${message} ${SHOWN[answer]}`;
  const left = Number.isNaN(config.expiresAtMs) ? 'unknown' : timeLeft(config.expiresAtMs, now);
  return [
    `${prefix} ${message}${expired ? ' (expired)' : ''}`,
    ...screen.details.map((d) => `  ${sanitize(d)}`),
    `  ${'time left'.padEnd(12)} ${left}`,
    ...(expired
      ? ['  its approval window has passed: it can no longer be approved or rejected', '  [s] skip  [q] quit']
      : ['  [a] approve  [r] reject  [s] skip  [q] quit']),
    ...(screen.status ? [`  ${sanitize(screen.status)}`] : []),
  ].join('\n');
});
