// `svc pending review` in a real terminal (tmux, 120x40): a scripted approver approves one held
// transaction (confirming Yes), rejects one, and meets one whose window closes while its prompt is
// on screen (the test advances the sandbox clock past expires_at, then presses approve).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux } from '../helpers/tmux.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;

afterEach(killAllTmux);

describe.skipIf(!hasTmux())('svc pending review on a terminal', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function ok(args: string[], input?: string) {
    const r = await t.svc(args, input === undefined ? {} : { input });
    if (r.code !== 0 && r.code !== 8) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r;
  }

  it('approve (confirm Yes), reject, and an approval that expired meanwhile; then the tally', async () => {
    await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
    const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/bot', '1000']);
    const ids: string[] = [];
    for (const amount of ['60', '70', '80']) {
      const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount, '--memo', `invoice ${amount}`], { env: { SVC_API_KEY: key } });
      expect(r.code, r.stderr).toBe(8);
      ids.push(TXN_RE.exec(r.stdout)![0]);
    }
    const decrypts = Boolean(t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey);

    const term = await startTmux([process.execPath, BIN, 'pending', 'review'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
    });

    // 1 of 3: the details, a ticking time-left line and the keys; approve, confirm Yes.
    let screen = await term.waitFor(`Held transaction 1 of 3: ${ids[0]}`);
    expect(screen).toMatch(/agent\s+@alice\/bot/);
    expect(screen).toMatch(/to\s+@acme/);
    expect(screen).toMatch(decrypts ? /amount\s+60\.00 USDG/ : /amount\s+encrypted/);
    if (decrypts) expect(screen).toMatch(/memo\s+invoice 60/);
    expect(screen).toMatch(/time left\s+1[45]m\d\ds/);
    expect(screen).toContain('[a] approve  [r] reject  [s] skip  [q] quit');
    await term.sendText('a');
    screen = await term.waitFor(/Approve txn_\w+ from @alice\/bot to @acme\? It is sent at once\. \(y\/N\)/);
    await term.sendText('y');
    await term.sendKeys('Enter');
    screen = await term.waitFor(new RegExp(`✓ approved ${ids[0]}: transfer tr_\\w+ submitted`));

    // 2 of 3: reject (no confirmation: nothing is sent).
    await term.waitFor(`Held transaction 2 of 3: ${ids[1]}`);
    await term.sendText('r');
    await term.waitFor(`✓ rejected ${ids[1]}: no funds moved`);

    // 3 of 3: its window closes while the prompt is showing.
    await term.waitFor(`Held transaction 3 of 3: ${ids[2]}`);
    await t.sandbox.advance(16 * 60_000);
    await term.sendText('a');
    await term.waitFor(/Approve txn_\w+ .*\(y\/N\)/);
    await term.sendText('y');
    await term.sendKeys('Enter');
    screen = await term.waitFor(`✗ ${ids[2]} expired meanwhile`);

    expect(await term.waitForExit()).toBe(0);
    screen = await term.capture();
    expect(screen).toContain('approved 1, rejected 1, skipped 0, expired 1');
    // The transcript, in order: each prompt collapses to its answer.
    const transcript = screen.split('\n').filter((l) => /^[?✔✓✗]|^approved \d/.test(l));
    expect(transcript.map((l) => l.replace(/txn_\w+/g, 'TXN').replace(/tr_\w+/g, 'TR'))).toEqual([
      '? Held transaction 1 of 3: TXN approve',
      '✔ Approve TXN from @alice/bot to @acme? It is sent at once. Yes',
      '✓ approved TXN: transfer TR submitted',
      '? Held transaction 2 of 3: TXN reject',
      '✓ rejected TXN: no funds moved',
      '? Held transaction 3 of 3: TXN approve',
      '✔ Approve TXN from @alice/bot to @acme? It is sent at once. Yes',
      '✗ TXN expired meanwhile: its approval window has passed, nothing was sent',
      'approved 1, rejected 1, skipped 0, expired 1',
    ]);
    expect(screen).not.toContain('svc_test_');

    // The service agrees: one transfer from the agent, nothing pending.
    const transfers = await t.svcJson<Array<{ from: string }>>(['transfer', 'ls'], { env: { SVC_API_KEY: key } });
    expect(transfers.filter((x) => x.from === '@alice/bot')).toHaveLength(1);
    expect(await t.svcJson(['pending', 'ls'])).toEqual([]);
  }, 90_000);

  it('q quits at once with the tally so far; nothing is decided', async () => {
    const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    const r = await t.svc(['--json', 'transfer', 'send', '@acme', '55'], { env: { SVC_API_KEY: key } });
    expect(r.code).toBe(8);
    const id = TXN_RE.exec(r.stdout)![0];
    const term = await startTmux([process.execPath, BIN, 'pending', 'review'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
    });
    await term.waitFor(`Held transaction 1 of 1: ${id}`);
    await term.sendText('q');
    expect(await term.waitForExit()).toBe(0);
    expect(await term.capture()).toContain('approved 0, rejected 0, skipped 0, expired 0');
    const pending = await t.svcJson<Array<{ transaction_id: string }>>(['pending', 'ls']);
    expect(pending.map((p) => p.transaction_id)).toEqual([id]);
  }, 60_000);
});
