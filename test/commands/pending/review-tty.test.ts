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
  let payerKey = '';
  let decrypts = false;
  beforeAll(async () => {
    t = await startTestSandbox();
    // 06:00 UTC of the next day: nothing below crosses midnight (today's spend), whatever the hour.
    const now = t.sandbox.now().getTime();
    await t.sandbox.advance(Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 + 6 * 3_600_000 - now);
    await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
    key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/bot', '1000']);
    await ok(['agent', 'create', 'payer', '--hitl-threshold', '50', '--daily-limit', '500']);
    payerKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/payer'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/payer', '1000']);
    decrypts = Boolean(t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  function ok(args: string[], input?: string) {
    return t.svcOk(args, input === undefined ? {} : { input });
  }

  async function hold(amount: string, memo?: string, as = { key, to: '@acme' }): Promise<string> {
    const r = await t.svc(['--json', 'transfer', 'send', as.to, amount, ...(memo ? ['--memo', memo] : [])], { env: { SVC_API_KEY: as.key } });
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
  /** What earlier tests left pending (q leaves it so), rejected so that a test sees only its own. */
  async function clearQueue(): Promise<void> {
    for (const id of await pending()) await ok(['pending', 'reject', id]);
  }

  it('the screen keeps up: spend today, balance, earlier payments; the count follows arrivals and expiry; requested and time left tick by the service clock', async () => {
    await clearQueue();
    const bob = { key: payerKey, to: '@bob' };
    const first = await hold('60', undefined, bob);
    const term = await review('--interval', '200ms');
    let screen = await term.waitFor(`Held transaction 1 of 1: ${first}`);
    expect(screen).toMatch(decrypts ? /^ {2}spent today {2}0\.00 of its 500\.00 daily limit \(500\.00 left\)$/m : /^ {2}spent today {2}unknown of its 500\.00 daily limit$/m);
    expect(screen).toMatch(decrypts ? /^ {2}balance {6}1000\.00 USDG$/m : /^ {2}balance {6}unknown$/m);
    expect(screen).toMatch(/^ {2}paid before {2}no: this is its first payment to this recipient$/m);
    expect(screen).toMatch(/^ {2}requested {4}(now|\d+s ago)$/m);
    expectFits(screen, 'Held transaction 1 of 1');

    // Held while this one is on screen: counted at once, nothing pressed.
    const second = await hold('70', undefined, bob);
    await term.waitFor(`Held transaction 1 of 2: ${first}`);
    // The service's clock moves 5 minutes (the sandbox's, advanced: no real time passes): both
    // times on screen follow it.
    await t.sandbox.advance(5 * 60_000);
    screen = await term.waitFor(/^ {2}requested {4}5m ago$/m);
    expect(screen).toMatch(/^ {2}time left {4}9m\d{1,2}s$/m);
    // Approving the first: the second now says the agent paid @bob before, and spent 60 today.
    await term.sendText('a');
    screen = await term.waitFor(`Held transaction 2 of 2: ${second}`);
    expect(screen).toMatch(/^ {2}paid before {2}yes, once \(the last (just now|\d+s ago)\)$/m);
    if (decrypts) {
      expect(screen).toMatch(/^ {2}spent today {2}60\.00 of its 500\.00 daily limit \(440\.00 left\)$/m);
      expect(screen).toMatch(/^ {2}balance {6}940\.00 USDG$/m);
    }
    // Its window closes while it is on screen: it says so, by the service's clock.
    await t.sandbox.advance(11 * 60_000);
    await term.waitFor(`Held transaction 2 of 2: ${second} (expired)`);
    await term.sendText('q');
    expect(await term.waitForExit()).toBe(0);
  }, 60_000);

  it('r asks for a reason (Enter skips it): one too long is said and asked again; the service keeps it, the approvals log records it', async () => {
    await clearQueue();
    const id = await hold('58');
    const term = await review();
    await term.waitFor(`Held transaction 1 of 1: ${id}`);
    await term.sendText('r');
    await term.waitFor('Reason for rejecting (optional, Enter to skip):');
    await term.sendText('x'.repeat(501));
    await term.sendKeys('Enter');
    await term.waitFor('the reason must be a string of 1 to 500 characters: it has 501');
    await term.sendText('duplicate of last week\'s invoice');
    await term.sendKeys('Enter');
    const screen = await term.waitFor(new RegExp(`✓ rejected ${id}: .*, discarded, no funds moved; reason: duplicate of last week's invoice`));
    expect(await term.waitForExit()).toBe(0);
    expect(screen).not.toContain('svc_test_');
    const res = await fetch(`${t.url}/_sandbox/export`, { headers: { 'x-sandbox-admin-token': t.sandbox.adminToken } });
    const exported = ((await res.json()) as { held: Array<{ transaction_id: string; reason?: string }> }).held.find((h) => h.transaction_id === id);
    expect(exported?.reason).toBe("duplicate of last week's invoice");
    const log = await t.svcJson<Array<Record<string, unknown>>>(['pending', 'log', '--limit', '1']);
    expect(log[0]).toMatchObject({ transaction_id: id, decision: 'reject', result: 'rejected', reason: "duplicate of last week's invoice", via: 'pending review', agent: '@alice/bot', to: '@acme' });
  }, 60_000);
});
