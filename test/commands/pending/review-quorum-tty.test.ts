// Two approvers at two terminals (docs/approvals.md "Two-person approval"): `svc pending review
// --watch` runs in a real terminal (tmux, its own process) with the owner's first key; the other
// approvers' keys approve in this process. The pane shows the other key's approval, then the
// decision that completed it elsewhere (who and what), each within two reads of the queue
// (counted at a recording proxy between the pane and the sandbox: polls, not seconds), and moves
// on; a key pressed then sends nothing, not even to the next transaction that arrives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { startLossyProxy, type LossyProxy } from '../../helpers/lossy-proxy.js';
import { hasTmux, killAllTmux, startTmux } from '../../helpers/tmux.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;

afterEach(killAllTmux);

describe.skipIf(!hasTmux())('pending review --watch while another approver works', () => {
  let t: TestSandbox;
  let proxy: LossyProxy;
  let agentKey = '';
  const keys: Record<string, string> = {};
  let paneDir = '';

  beforeAll(async () => {
    t = await startTestSandbox();
    await t.svcOk(['agent', 'create', 'bot', '--hitl-threshold', '50', '--approvals-required', '2']);
    agentKey = (await t.svcOk(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    await t.svcOk(['sandbox', 'fund', '@alice/bot', '1000']);
    for (const person of ['ops2', 'ops3']) keys[person] = (await t.svcOk(['sandbox', 'key', 'create', '--account', '@alice', '--name', person])).stdout.trim();
    proxy = await startLossyProxy(t.url, () => 'forward');
    paneDir = mkdtempSync(join(tmpdir(), 'svc-review-quorum-tty-'));
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
    if (paneDir) rmSync(paneDir, { recursive: true, force: true });
  });

  async function hold(amount: string): Promise<string> {
    const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount], { env: { SVC_API_KEY: agentKey } });
    expect(r.code, r.stderr).toBe(8);
    return TXN_RE.exec(r.stdout)![0];
  }

  const approveAs = async (person: string, id: string) => {
    const r = await t.svc(['pending', 'approve', id], { env: { SVC_API_KEY: keys[person]! } });
    expect(r.code, r.stderr).toBe(0);
  };
  /** The pane's reads of the queue so far (each --interval while a prompt is up). */
  const queueReads = () => proxy.requests.filter((r) => r.method === 'GET' && r.url === '/v1/agents/transactions/pending').length;
  const panePosts = () => proxy.requests.filter((r) => r.method === 'POST');

  it('shows "1 of 2 so far: key "ops2"", then "approved elsewhere by key "ops3"" (each within two reads), moves on; a pressed key sends nothing', async () => {
    const id = await hold('60');
    const alice = t.sandbox.seeded.find((a) => a.handle === '@alice')!;
    const term = await startTmux([process.execPath, BIN, 'pending', 'review', '--watch', '--interval', '2s'], {
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', NO_COLOR: '1', SVC_CONFIG_DIR: paneDir,
        SVC_API_KEY: t.keyOf('@alice'), SVC_BASE_URL: proxy.url, ...(alice.decryptionKey ? { SVC_DECRYPTION_KEY: alice.decryptionKey } : {}),
      },
      width: 100,
    });
    await term.waitFor(`Held transaction 1 of 1: ${id}`);
    await term.waitFor(/^ {2}approvals {4}0 of 2 so far$/m);

    // Another person approves with their own key: the pane shows it, and who.
    await approveAs('ops2', id);
    let before = queueReads();
    await term.waitFor(/^ {2}approvals {4}1 of 2 so far: key "ops2" of @alice$/m);
    expect(queueReads() - before).toBeLessThanOrEqual(2);

    // A third completes it elsewhere: the pane says who and what, and moves on.
    await approveAs('ops3', id);
    before = queueReads();
    let screen = await term.waitFor(`? Held transaction 1 of 1: ${id} approved elsewhere by key "ops3" of @alice`);
    expect(queueReads() - before).toBeLessThanOrEqual(2);
    screen = await term.waitFor(new RegExp(`✗ ${id} is no longer pending: approved by key "ops3" of @alice \\(2 of 2 approvals: keys "ops2" and "ops3" of @alice\\): submitted as transfer tr_\\w+\\n(.*\\n)*waiting for held transactions… \\(Ctrl-C to stop\\)`));
    expect(screen).not.toContain('[a] approve  [r] reject  [s] skip  [q] quit\n✓');

    // The approver's `a`, meant for it, arrives late: nothing is sent, not even to the next one.
    await term.sendText('a');
    const next = await hold('61');
    await term.waitFor(`Held transaction 1 of 1: ${next}`);
    await term.sendText('s');
    await term.waitFor(/skip\n(.*\n)*waiting for held transactions…[^\n]*$/);
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    expect(await term.capture()).toMatch(/^interrupted: approved 0, rejected 0, skipped 1, expired 0, decided elsewhere 1$/m);
    expect(panePosts()).toEqual([]);
    const still = await t.svcJson<{ status: string; approvals: unknown[] }>(['pending', 'get', next]);
    expect(still).toMatchObject({ status: 'pending_approval', approvals: [] });
    const log = await t.svc(['--json', 'pending', 'log'], { env: { SVC_CONFIG_DIR: paneDir } });
    expect(JSON.parse(log.stdout)).toEqual([]);
  }, 90_000);
});
