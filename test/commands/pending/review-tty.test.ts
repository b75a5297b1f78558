// `svc pending review` in a real terminal (tmux, 80 columns): one key per transaction, no Enter
// and, with a test key, no "are you sure"; the prompt restates amount, rule, request time and
// time left; an expired transaction is shown as expired and cannot be approved; Ctrl-C (at a
// prompt, or while --watch waits) prints the tally so far and exits 130. The sandbox clock is
// advanced by the test; nothing waits for real time to pass.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux, type TmuxSession } from '../../helpers/tmux.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const WIDTH = 80;

afterEach(killAllTmux);

describe.skipIf(!hasTmux())('svc pending review on a terminal (80 columns)', () => {
  let t: TestSandbox;
  let key = '';
  let decrypts = false;
  beforeAll(async () => {
    t = await startTestSandbox();
    await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
    key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/bot', '1000']);
    decrypts = Boolean(t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function ok(args: string[], input?: string) {
    const r = await t.svc(args, input === undefined ? {} : { input });
    if (r.code !== 0 && r.code !== 8) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r;
  }

  async function hold(amount: string, memo?: string): Promise<string> {
    const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount, ...(memo ? ['--memo', memo] : [])], { env: { SVC_API_KEY: key } });
    expect(r.code, r.stderr).toBe(8);
    return TXN_RE.exec(r.stdout)![0];
  }

  function review(...flags: string[]): Promise<TmuxSession> {
    return reviewIn({ NO_COLOR: '1' }, ...flags);
  }

  function reviewIn(env: Record<string, string>, ...flags: string[]): Promise<TmuxSession> {
    return startTmux([process.execPath, BIN, 'pending', 'review', ...flags], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, ...env },
      width: WIDTH,
    });
  }

  /** The lines from the prompt's question on: none may be wider than the terminal. */
  function expectFits(screen: string, from: string): void {
    const lines = screen.split('\n');
    const start = lines.findIndex((l) => l.includes(from));
    expect(start, screen).toBeGreaterThanOrEqual(0);
    for (const l of lines.slice(start)) expect(l.length, `wider than ${WIDTH}: ${l}`).toBeLessThanOrEqual(WIDTH);
  }

  /** The transcript: each prompt collapsed to its answer, the results and the tally. */
  function transcript(screen: string): string[] {
    return screen
      .split('\n')
      .filter((l) => /^[?✔✓✗]|^(interrupted: )?approved \d/.test(l))
      .map((l) => l.replace(/txn_\w+/g, 'TXN').replace(/tr_\w+/g, 'TR'));
  }

  const pending = async () => (await t.svcJson<Array<{ transaction_id: string }>>(['pending', 'ls'])).map((p) => p.transaction_id);
  const agentTransfers = async () => (await t.svcJson<Array<{ from: string }>>(['transfer', 'ls'], { env: { SVC_API_KEY: key } })).filter((x) => x.from === '@alice/bot').length;

  it('a / r / s without Enter and without a confirmation; the prompt restates amount, rule and times', async () => {
    const ids = [await hold('60', 'invoice 60'), await hold('70'), await hold('80')];
    const before = await agentTransfers();
    const term = await review();

    let screen = await term.waitFor(`Held transaction 1 of 3: ${ids[0]}`);
    expect(screen).toMatch(/^ {2}agent {8}@alice\/bot$/m);
    expect(screen).toMatch(/^ {2}to {11}@acme$/m);
    expect(screen).toMatch(decrypts ? /^ {2}amount {7}60\.00 USDG$/m : /^ {2}amount {7}encrypted$/m);
    if (decrypts) expect(screen).toMatch(/^ {2}memo {9}invoice 60$/m);
    expect(screen).toMatch(/^ {2}held {9}above the approval threshold \(hitl_threshold_usdc 50\)$/m);
    expect(screen).toMatch(/^ {2}requested {4}(now|\d+s ago)$/m);
    expect(screen).toMatch(/^ {2}time left {4}1[45]m(\d{1,2}s)?$/m);
    expect(screen).toContain('  [a] approve  [r] reject  [s] skip  [q] quit');
    expectFits(screen, 'Held transaction 1 of 3');
    await term.sendText('a'); // one key: no Enter, no "are you sure" with a test key
    screen = await term.waitFor(new RegExp(`✓ approved ${ids[0]}: (60\\.00 USDG|an encrypted amount) from @alice/bot to @acme, submitted as transfer tr_\\w+`));
    expect(screen).not.toContain('(y/N)');

    await term.waitFor(`Held transaction 2 of 3: ${ids[1]}`);
    await term.sendText('r');
    await term.waitFor('Reason for rejecting (optional, Enter to skip):');
    await term.sendKeys('Enter'); // no reason
    await term.waitFor(new RegExp(`✓ rejected ${ids[1]}: .* from @alice/bot to @acme, discarded, no funds moved`));
    await term.waitFor(`Held transaction 3 of 3: ${ids[2]}`);
    await term.sendText('s');

    expect(await term.waitForExit()).toBe(0);
    screen = await term.capture();
    expect(transcript(screen)).toEqual([
      '? Held transaction 1 of 3: TXN approve',
      `✓ approved TXN: ${decrypts ? '60.00 USDG' : 'an encrypted amount'} from @alice/bot to @acme, submitted as transfer TR`,
      '? Held transaction 2 of 3: TXN reject',
      '✔ Reason for rejecting (optional, Enter to skip):',
      `✓ rejected TXN: ${decrypts ? '70.00 USDG' : 'an encrypted amount'} from @alice/bot to @acme, discarded, no funds moved`,
      '? Held transaction 3 of 3: TXN skip',
      'approved 1, rejected 1, skipped 1, expired 0',
    ]);
    expect(screen).not.toContain('svc_test_');
    // The service agrees: one transfer made, the skipped one still waits.
    expect(await agentTransfers()).toBe(before + 1);
    expect(await pending()).toEqual([ids[2]]);
    await ok(['pending', 'reject', ids[2]!]);
  }, 90_000);

  it('an expired transaction is shown as expired: a does nothing, only skip or quit; one that expires before its turn is said, not counted', async () => {
    const ids = [await hold('61'), await hold('62')];
    const before = await agentTransfers();
    const term = await review('--interval', '200ms');
    await term.waitFor(`Held transaction 1 of 2: ${ids[0]}`);
    // Both windows close while the first prompt is on screen: the queue, read again meanwhile,
    // brings the service's clock, so this prompt turns expired and the count drops the other one.
    await t.sandbox.advance(16 * 60_000);
    let screen = await term.waitFor(`Held transaction 1 of 1: ${ids[0]} (expired)`);
    expect(screen).toMatch(/^ {2}time left {4}expired$/m);
    expect(screen).toContain('  its approval window has passed: it can no longer be approved or rejected');
    expect(screen).toMatch(/^ {2}\[s\] skip {2}\[q\] quit$/m);
    expect(screen).not.toContain('[a] approve');
    expectFits(screen, 'Held transaction 1 of 1');
    await term.sendText('a'); // ignored: nothing is sent
    await term.sendText('r'); // ignored too
    await term.sendText('s');
    expect(await term.waitForExit()).toBe(0);
    screen = await term.capture();
    expect(transcript(screen)).toEqual([
      '? Held transaction 1 of 1: TXN skip (expired)',
      '✗ TXN expired: its approval window has passed, nothing was sent',
      '✗ TXN expired before its turn: its approval window has passed, nothing was sent',
      'approved 0, rejected 0, skipped 0, expired 2',
    ]);
    expect(await agentTransfers()).toBe(before);
  }, 60_000);

  it('Ctrl-C at a prompt: the tally so far, exit 130; what was not decided stays pending', async () => {
    const ids = [await hold('63'), await hold('64')];
    const term = await review();
    await term.waitFor(`Held transaction 1 of 2: ${ids[0]}`);
    await term.sendText('r');
    await term.waitFor('Reason for rejecting');
    await term.sendKeys('Enter');
    await term.waitFor(`Held transaction 2 of 2: ${ids[1]}`);
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    const screen = await term.capture();
    expect(screen).toMatch(/^interrupted: approved 0, rejected 1, skipped 0, expired 0$/m);
    expect(screen).not.toMatch(/^error: /m);
    expect(await pending()).toEqual([ids[1]]);
  }, 60_000);

  it('--watch: a new one rings in; Ctrl-C while waiting prints the tally and exits 130', async () => {
    // One left from the test above: skipped, then the review waits for new ones.
    const left = await pending();
    expect(left).toHaveLength(1);
    const term = await review('--watch', '--interval', '200ms');
    await term.waitFor(`Held transaction 1 of 1: ${left[0]}`);
    await term.sendText('s');
    await term.waitFor('waiting for held transactions… (Ctrl-C to stop)');
    const fresh = await hold('66');
    await term.waitFor(`Held transaction 1 of 1: ${fresh}`);
    await term.sendText('a');
    await term.waitFor(new RegExp(`✓ approved ${fresh}: `));
    await term.waitFor(/approved \w+[^\n]*\n(?:[^\n]*\n)*waiting for held transactions… \(Ctrl-C to stop\)$/);
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    expect(await term.capture()).toMatch(/^interrupted: approved 1, rejected 0, skipped 1, expired 0$/m);
    await ok(['pending', 'reject', left[0]!]);
  }, 60_000);

  it('in colour: an approval is green, a rejection red (docs/ux.md)', async () => {
    const ids = [await hold('56'), await hold('57')];
    const term = await reviewIn({});
    await term.waitFor(`Held transaction 1 of 2: ${ids[0]}`);
    await term.sendText('a');
    await term.waitFor(`Held transaction 2 of 2: ${ids[1]}`);
    await term.sendText('r');
    await term.waitFor('Reason for rejecting');
    await term.sendKeys('Enter');
    expect(await term.waitForExit()).toBe(0);
    const screen = await term.capture({ escapes: true });
    expect(screen).toMatch(new RegExp(`\\u001b\\[32m✓ approved\\u001b\\[39m ${ids[0]}`));
    expect(screen).toMatch(new RegExp(`\\u001b\\[31m✓ rejected\\u001b\\[39m ${ids[1]}`));
  }, 60_000);

  it('q quits at once with the tally so far; nothing is decided', async () => {
    const id = await hold('55');
    const term = await review();
    await term.waitFor(`Held transaction 1 of 1: ${id}`);
    await term.sendText('q');
    expect(await term.waitForExit()).toBe(0);
    expect(await term.capture()).toContain('approved 0, rejected 0, skipped 0, expired 0');
    expect(await pending()).toEqual([id]);
  }, 60_000);
});
