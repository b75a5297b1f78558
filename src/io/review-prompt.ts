// A one-key prompt for a held transaction (no Enter), redrawn every second: the time left and
// the rest of the screen (config.live: the queue count, the time since the request, a status
// line) by the service's clock. Once the window has closed it says so and offers only skip and
// quit: the service refuses approve and reject after expires_at (409 transaction_expired). Once
// the caller says it was decided elsewhere (live().ended) it closes by itself, and a key pressed
// then decides nothing.
// What it draws comes from the agent and the service: the message and every detail line are
// sanitised here, so a caller cannot forget it (sanitising twice changes nothing).
import { createPrompt, useEffect, useKeypress, usePrefix, useState } from '@inquirer/core';
import { sanitize } from './sanitize.js';
import { timeLeft } from './time.js';
import type { ReviewChoice, ReviewConfig } from './prompter.js';

const KEYS: Record<string, ReviewChoice> = { a: 'approve', r: 'reject', s: 'skip', q: 'quit' };
const SHOWN: Record<Exclude<ReviewChoice, 'elsewhere'>, string> = { approve: 'approve', reject: 'reject', skip: 'skip', quit: 'quit', expired: 'skip (expired)' };

export const reviewPrompt = createPrompt<ReviewChoice, ReviewConfig>((config, done) => {
  // A new object at every tick, so the prompt is drawn again even when the clock has not moved
  // (what config.live says may have: the count, the status line).
  const [clock, setClock] = useState({ now: config.now() });
  const now = clock.now;
  const setNow = (ms: number) => setClock({ now: ms });
  const [answer, setAnswer] = useState<ReviewChoice | undefined>(undefined);
  const prefix = usePrefix({});

  // After the screen moved on by itself, a and r wait a moment (a key meant for the one before).
  const [armed, setArmed] = useState(!config.holdKeysMs);

  useEffect(() => {
    const timer = setInterval(() => setNow(config.now()), 1000);
    // What live() says changed (decided or approved elsewhere): drawn now, not at the next tick.
    const unsubscribe = config.subscribe?.(() => setNow(config.now()));
    const hold = config.holdKeysMs ? setTimeout(() => setArmed(true), config.holdKeysMs) : undefined;
    return () => {
      clearInterval(timer);
      unsubscribe?.();
      if (hold) clearTimeout(hold);
    };
  }, []);

  const expired = !Number.isNaN(config.expiresAtMs) && config.expiresAtMs <= now;
  // Read at every redraw (the tick below, a key): the count, the times and the status move.
  const screen = config.live?.() ?? { message: config.message, details: config.details };
  const message = sanitize(screen.message);

  // No longer pending (decided elsewhere): the prompt closes by itself, deciding nothing.
  useEffect(() => {
    if (screen.ended !== undefined && !answer) {
      setAnswer('elsewhere');
      done('elsewhere');
    }
  }, [screen.ended, answer]);

  useKeypress((key) => {
    if (key.ctrl || answer) return;
    // Checked at the key press: decided elsewhere since the last redraw sends nothing.
    if (config.live?.().ended !== undefined) {
      setAnswer('elsewhere');
      done('elsewhere');
      return;
    }
    let choice = KEYS[key.name];
    if (!armed && (choice === 'approve' || choice === 'reject')) return;
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

  if (answer) return `${prefix} ${message} ${answer === 'elsewhere' ? sanitize(screen.ended ?? 'decided elsewhere') : SHOWN[answer]}`;
  const left = Number.isNaN(config.expiresAtMs) ? 'unknown' : timeLeft(config.expiresAtMs, now);
  return [
    `${prefix} ${message}${expired ? ' (expired)' : ''}`,
    ...screen.details.map((d) => `  ${sanitize(d)}`),
    `  ${'time left'.padEnd(12)} ${left}`,
    ...(expired
      ? ['  its approval window has passed: it can no longer be approved or rejected', '  [s] skip  [q] quit']
      : ['  [a] approve  [r] reject  [s] skip  [q] quit', ...(armed ? [] : ['  (a and r in a moment: the screen just moved on by itself)'])]),
    ...(screen.status ? [`  ${sanitize(screen.status)}`] : []),
  ].join('\n');
});
