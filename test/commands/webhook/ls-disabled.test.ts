// `svc webhook ls` with a subscription the sandbox disabled (docs/webhooks.md, Delivery limits):
// every delivery to it failed for 24 h of sandbox clock. The table says `disabled` in STATUS, TSV
// adds STATUS last, --json stays the service's answer, and stderr names the command that enables
// it again; running that command does (the same id), after which ls shows it active.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';

const HOUR = 3_600_000;

describe('svc webhook ls: a disabled subscription', () => {
  let t: TestSandbox;
  let down: string;
  let up: string;
  beforeAll(async () => {
    t = await startTestSandbox();
    // Port 9 (discard) on loopback: nothing listens, every attempt is a refused connection.
    down = (await t.svcJson<{ webhook_id: string }>(['webhook', 'create', 'http://127.0.0.1:9/down', '--events', 'transfer.failed,transfer.initiated'])).webhook_id;
    up = (await t.svcJson<{ webhook_id: string }>(['webhook', 'create', 'https://hooks.example.com/svc', '--events', 'agent.policy.updated'])).webhook_id;
    await t.svcOk(['sandbox', 'trigger', 'transfer.initiated']);
    await t.sandbox.webhooksIdle();
    for (let h = 0; h < 24; h++) {
      await t.sandbox.advance(HOUR);
      await t.sandbox.webhooksIdle();
    }
  });
  afterAll(() => t.close());

  it('shows it disabled (table, TSV, JSON) and how to enable it; creating it again does', async () => {
    const json = await t.svcJson<Array<Record<string, unknown>>>(['webhook', 'ls']);
    expect(json.find((w) => w.webhook_id === down)).toMatchObject({ status: 'disabled', disabled_at: expect.any(String) });
    expect(json.find((w) => w.webhook_id === up)).not.toHaveProperty('status'); // the service's answer, as sent

    const table = await runCli(['webhook', 'ls'], { env: t.env, tty: { stdout: true }, columns: 200 });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+URL\s+EVENTS\s+CREATED\s*$/m);
    expect(table.stdout).toMatch(new RegExp(`^${down}\\s+disabled (now|\\d+s ago)\\s+http://127\\.0\\.0\\.1:9/down\\s`, 'm'));
    expect(table.stdout).toMatch(new RegExp(`^${up}\\s+active\\s+https://hooks\\.example\\.com/svc\\s`, 'm'));
    const fix = `\`svc webhook create http://127.0.0.1:9/down --events transfer.failed,transfer.initiated\``;
    expect(table.stderr).toBe(`${down} is disabled: every delivery failed for 24 h, so it gets no new events. Fix its receiver, then enable it again (same id and secret) with ${fix}\n`);

    const tsv = await t.svc(['webhook', 'ls']);
    expect(tsv.code).toBe(0);
    const rows = tsv.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => [r[0], r.at(-1)])).toEqual([['webhook_id', 'status'], [down, 'disabled'], [up, 'active']]);
    expect(tsv.stderr).toContain(fix);

    // The command it names (here with the events in another order): the same subscription, enabled.
    const again = await t.svc(['webhook', 'create', 'http://127.0.0.1:9/down', '--events', 'transfer.initiated,transfer.failed']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(down);
    expect(again.stderr).toContain(`enabled again: subscription ${down} had been disabled after a day of failed deliveries; it keeps the signing secret shown when it was first created.`);
    expect(again.stderr).not.toContain('no signing secret');
    const after = await t.svc(['webhook', 'ls']);
    expect(after.stdout.trim().split('\n').map((l) => l.split('\t').at(-1))).toEqual(['status', 'active', 'active']);
    expect(after.stderr).toBe('');
  });
});
