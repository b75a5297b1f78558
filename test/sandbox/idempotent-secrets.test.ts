// A create whose first answer carries something shown once (a webhook's signing secret, an
// agent's decryption key, a sandbox API key), repeated under the same Idempotency-Key, answers
// the first answer whole: a client that lost it learns the secret from its retry. The database
// holds such an answer only sealed (issue 34).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dbBytes, startSandbox, type Res, type TestSandbox } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-idem-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const idem = (key: string) => ({ headers: { 'idempotency-key': key } });

/** The three creates, each run through `t` under `key`; `secret` picks what is shown once. */
const CREATES: ReadonlyArray<{ what: string; secret: (r: Res) => unknown; run: (t: TestSandbox, key: string, aliceKey: string) => Promise<Res> }> = [
  {
    what: 'POST /v1/webhooks (secret)',
    secret: (r) => r.body.secret,
    run: (t, key, aliceKey) => t.call('POST', '/v1/webhooks', { key: aliceKey, body: { url: 'http://127.0.0.1:9/hooks', events: ['transfer.confirmed'] }, ...idem(key) }),
  },
  {
    what: 'POST /v1/accounts/me/agents (decryption_key)',
    secret: (r) => r.body.decryption_key,
    run: (t, key, aliceKey) => t.call('POST', '/v1/accounts/me/agents', { key: aliceKey, body: { name: 'bot', spend_policy: { hitl_threshold_usdc: 5 } }, ...idem(key) }),
  },
  {
    what: 'POST /_sandbox/keys (key)',
    secret: (r) => r.body.key,
    run: (t, key) => t.admin('POST', '/_sandbox/keys', { account: '@alice', name: 'ci' }, idem(key)),
  },
];

describe('an Idempotency-Key replay of a create repeats the first answer whole, shown-once fields included', () => {
  it.each(CREATES)('$what', async ({ secret, run }) => {
    const t = await startSandbox();
    try {
      const first = await run(t, 'create-1', t.keyOf('@alice'));
      expect(first.status, first.text).toBe(201);
      expect(typeof secret(first)).toBe('string');
      const again = await run(t, 'create-1', t.keyOf('@alice'));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      // One object was made, not two.
      expect((await t.as('@alice').get('/v1/webhooks')).body.webhooks.length).toBeLessThanOrEqual(1);
      expect((await t.as('@alice').get('/v1/accounts/me/agents')).body.agents.length).toBeLessThanOrEqual(1);
      expect((await t.admin('GET', '/_sandbox/keys?account=@alice')).body.keys.length).toBeLessThanOrEqual(2);
    } finally {
      await t.close();
    }
  });

  it('a key made by a replayed key create is the one that works (a retry does not make a second)', async () => {
    const t = await startSandbox();
    try {
      const first = await t.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'ci' }, idem('k'));
      const again = await t.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'ci' }, idem('k'));
      expect(again.body.key).toBe(first.body.key);
      expect((await t.admin('GET', '/_sandbox/keys?account=@acme')).body.keys.map((k: { name: string }) => k.name)).toEqual(['seed', 'ci']);
      expect((await t.call('GET', '/v1/accounts/me', { key: again.body.key })).body.handle).toBe('@acme');
    } finally {
      await t.close();
    }
  });

  it('the replay answers the secret even after the subscription was deleted (the first answer, not the current state)', async () => {
    const t = await startSandbox();
    try {
      const [wh] = CREATES;
      const first = await wh!.run(t, 'w', t.keyOf('@alice'));
      expect((await t.call('DELETE', `/v1/webhooks/${first.body.webhook_id}`, { key: t.keyOf('@alice') })).status).toBe(200);
      expect((await wh!.run(t, 'w', t.keyOf('@alice'))).text).toBe(first.text);
    } finally {
      await t.close();
    }
  });
});

describe('the database holds a shown-once answer only sealed', () => {
  it('no secret in the clear, running or stopped; after a restart the replay is still whole', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    const aliceKey = t.keyOf('@alice');
    const firsts = [];
    for (const c of CREATES) firsts.push(await c.run(t, `at-rest-${CREATES.indexOf(c)}`, aliceKey));
    const secrets = firsts.map((r, i) => CREATES[i]!.secret(r) as string);
    for (const s of secrets) expect(s).toMatch(/^\S{20,}$/);
    for (const phase of ['running', 'stopped']) {
      if (phase === 'stopped') await t.close();
      const bytes = dbBytes(statePath);
      for (const s of secrets) expect(bytes, `${phase}: the database holds ${s.slice(0, 12)}… in the clear`).not.toContain(s);
    }
    // The same file, a new process's worth of state: the sealed answers open with the key file.
    const t2 = await startSandbox({ ephemeral: false, statePath });
    try {
      for (const [i, c] of CREATES.entries()) {
        const again = await c.run(t2, `at-rest-${CREATES.indexOf(c)}`, aliceKey);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.text).toBe(firsts[i]!.text);
      }
    } finally {
      await t2.close();
    }
  });
});
