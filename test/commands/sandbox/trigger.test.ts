// `svc sandbox trigger <event>` for every event type: the sample names objects that exist, so
// every command it prints (and the one `svc webhook listen` prints for a held transaction) runs
// as printed and succeeds (issue 34: `svc pending approve txn_…` of a sample used to exit 4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actOnHeld } from '../../../src/commands/webhook/listen.js';
import { EVENT_TYPES } from '../../../src/domain/events.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

/** The words of one printed command (values are plain, or one single-quoted word: shell-command.ts). */
function words(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));
}

/** The `svc …` commands a run printed on stderr, as argv (without `svc`). */
function printed(stderr: string): string[][] {
  return [...stderr.matchAll(/`svc ([^`]+)`/g)].map((m) => words(m[1]!));
}

let t: TestSandbox;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestSandbox();
  rx = await startReceiver();
  await t.svcOk(['webhook', 'create', rx.url, '--events', 'all']);
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

describe('every command a trigger prints runs and succeeds', () => {
  it.each(EVENT_TYPES)('%s', async (type) => {
    const r = await t.svc(['sandbox', 'trigger', type]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^evt_\w+\n$/);
    expect(r.stderr).toMatch(/queued for 1 subscription/);
    expect(r.stderr).toMatch(/^it names .*\n$/m);
    expect(r.stderr).not.toContain('\\n');
    const commands = printed(r.stderr);
    expect(commands.length, r.stderr).toBeGreaterThan(0);
    for (const argv of commands) {
      const run = await t.svc(argv);
      expect(run.code, `svc ${argv.join(' ')} (printed by trigger ${type}): ${run.stderr}`).toBe(0);
    }
  });

  it('pending_approval: the command `webhook listen` prints for the delivered sample approves a real held transaction', async () => {
    const r = await t.svcJson<{ event_id: string }>(['sandbox', 'trigger', 'agent.transaction.pending_approval']);
    // Wait for this event's delivery, not for any next one: an earlier test's trigger may still be
    // in flight (it is when tests run in another order, --sequence.shuffle).
    while (!rx.got.some((g) => g.json.event_id === r.event_id)) await rx.waitFor(rx.got.length + 1);
    const body = rx.got.find((g) => g.json.event_id === r.event_id)!.json;
    expect(body).toMatchObject({ sample: true, agent: '@alice/sample-agent' });
    const act = actOnHeld('agent.transaction.pending_approval', body)!;
    const approve = /svc (pending approve \S+)/.exec(act)![1]!;
    const run = await t.svc(approve.split(' '));
    expect(run.code, `svc ${approve}: ${run.stderr}`).toBe(0);
    expect((await t.svcJson<{ status: string }>(['pending', 'get', String(body.transaction_id)])).status).toBe('approved');
  });

  it('with --account naming an agent of the profile\'s account: commands for that agent', async () => {
    const r = await t.svc(['sandbox', 'trigger', 'agent.policy.updated', '--account', '@alice/sample-agent']);
    expect(r.code, r.stderr).toBe(0);
    const commands = printed(r.stderr);
    expect(commands).toEqual([['agent', 'policy', 'get', '@alice/sample-agent']]);
    expect((await t.svc(commands[0]!)).code).toBe(0);
  });

  it('another account\'s sample names its objects and prints no command the profile could not run', async () => {
    const r = await t.svc(['sandbox', 'trigger', 'transfer.confirmed', '--account', '@acme']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/it names transfer tr_\w+ of @acme, objects of @acme \(read them with a profile of @acme\)/);
    expect(printed(r.stderr).filter((c) => c[0] !== 'webhook')).toEqual([]);
  });

  it('names the profile when a plain `svc` would not reach this sandbox as it', async () => {
    const r = await t.svc(['sandbox', 'trigger', 'transfer.initiated'], { env: { SVC_API_KEY: t.keyOf('@acme') } });
    expect(r.code, r.stderr).toBe(0);
    const commands = printed(r.stderr);
    expect(commands).toEqual([['--profile', 'sandbox', 'transfer', 'get', expect.stringMatching(/^tr_\w+$/)]]);
    expect((await t.svc(commands[0]!, { env: { SVC_API_KEY: t.keyOf('@acme') } })).code).toBe(0);
  });
});
