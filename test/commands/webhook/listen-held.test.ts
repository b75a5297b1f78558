// `webhook listen` (a person's view, not --json) tells an approver what to run when an agent's
// transaction is held: the transaction id and `svc pending approve <id>` under the event's line,
// for a verified delivery only, and never an id that is not a plain token inside a command.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { listenInProcess, post } from '../../helpers/listen.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const SECRET = 'whsec_listenheldtest000000001';
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');
const held = (id: unknown) => JSON.stringify({
  event_id: `evt_${Math.random().toString(36).slice(2)}`, event: 'agent.transaction.pending_approval', timestamp: new Date().toISOString(),
  transaction_id: id, agent: '@alice/bot', to: '@acme',
});

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(async () => {
  await t?.close();
});

describe('webhook listen: a held transaction comes with the command to act on it', () => {
  it('from the sandbox: the id and `svc pending approve <id>` under the event', async () => {
    expect((await t.svc(['agent', 'create', 'bot', '--hitl-threshold', '50'])).code).toBe(0);
    const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    const l = await listenInProcess(t, ['--events', 'agent.transaction.pending_approval'], { json: false });
    try {
      const sent = await t.svc(['--json', 'transfer', 'send', '@acme', '60'], { env: { SVC_API_KEY: key } });
      expect(sent.code, sent.stderr).toBe(8);
      const id = TXN_RE.exec(sent.stdout)![0];
      const line = await l.waitLine((x) => String(x.text).includes('svc pending approve'));
      expect(line.text).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}held for approval: svc pending approve ${id} {2}\\(or: svc pending review\\)$`));
      expect(l.stdout()).toMatch(new RegExp(`agent\\.transaction\\.pending_approval +evt_\\w+ @alice/bot {2}✓ signed\\n[^\\n]*svc pending approve ${id} `));
    } finally {
      await l.stop();
    }
  });

  it('only for a verified delivery; an id that is not a plain token is shown escaped, never in a command', async () => {
    const stop = new AbortController();
    let err = '';
    let out = '';
    let ready!: (url: string) => void;
    const listening = new Promise<string>((r) => (ready = r));
    const done: Promise<CliResult> = runCli(['webhook', 'listen', '--no-subscribe', '--secret-env', 'WH'], {
      env: { ...t.env, WH: SECRET },
      interrupt: stop.signal,
      onStderr: (s) => {
        err += s;
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) ready(m[1]!);
      },
      onStdout: (s) => (out += s),
    });
    const url = await listening;
    const forged = held('txn_forged000000000000000000');
    expect(await post(url, forged, { 'content-type': 'application/json', 'x-service-signature': '0'.repeat(64) })).toBe(401);
    const odd = held('txn_1; rm -rf ~ \u001b[2J');
    expect(await post(url, odd, { 'content-type': 'application/json', 'x-service-signature': sign(odd) })).toBe(200);
    const good = held('txn_plain0000000000000000001');
    expect(await post(url, good, { 'content-type': 'application/json', 'x-service-signature': sign(good) })).toBe(200);
    stop.abort('SIGINT');
    expect((await done).code).toBe(130);

    expect(out).not.toContain('txn_forged');
    expect(out).toContain('held for approval: txn_1; rm -rf ~ \\x1b[2J (svc pending review)\n');
    expect(out).not.toMatch(/svc pending (approve|reject) txn_1;/);
    expect(out).not.toContain('\u001b');
    expect(out).toContain('held for approval: svc pending approve txn_plain0000000000000000001  (or: svc pending review)\n');
    expect(out.match(/held for approval/g)).toHaveLength(2);
  });
});
