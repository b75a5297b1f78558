// Terminal safety: no string from the service, a file or a webhook sender reaches a screen raw.
// An agent's memo, a handle, a webhook URL, a key name, an error message, a profile from the
// config file, a policy file, the fields of a delivery: each carries escape sequences (ESC[2J,
// ESC]0;title BEL, the C1 CSI 0x9b, RLO U+202E, a tab and a newline inside a one-line field), and
// goes through every command that shows it, on a terminal, piped (TSV) and with --json. The output
// must hold no raw control character (only \n line ends, and \t between TSV columns), and the
// escaped visible form must be there (so the text was not simply dropped). JSON must parse and
// give back the original strings. The issue's own attack memo is used as is.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/crypto/webhook-signature.js';
import { ProfileStore } from '../../src/config/profiles.js';
import { runCli, type CliOptions, type CliResult } from '../helpers/cli.js';
import { BIN, startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { FAKE_LIVE_KEY, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer, type RecordedRequest, type Reply } from '../helpers/scripted-server.js';
import { loopbackCaFile } from '../helpers/tls.js';
import { hasTmux, killAllTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';

const ESC = '\u001b';
const BEL = '\u0007';
const CSI8 = '\u009b'; // the 8-bit CSI: a terminal may act on it like ESC[
const RLO = '\u202e'; // right-to-left override: reorders what the reader sees

/** The memo of the issue, byte for byte. */
const ATTACK = `pay ${ESC}[2J ${ESC}[1;1H approved by admin ${ESC}]0;pwned${BEL}`;
const ATTACK_SHOWN = 'pay \\x1b[2J \\x1b[1;1H approved by admin \\x1b]0;pwned\\x07';

/** Every class at once, including a tab and a newline inside what must stay one field on one line. */
const H = `a${ESC}[2Jb${ESC}]0;title${BEL}c${CSI8}d${RLO}e\tf\ng`;
const HS = 'a\\x1b[2Jb\\x1b]0;title\\x07c\\x9bd\\u202ee\\tf\\ng';
/** A quorum (beyond the spec) whose one approval is by a hostile key name, of a hostile account. */
const QUORUM = { approvals_required: 2, approvals: [{ key_name: H, account: `@alice${H}`, at: '2026-01-01T00:00:00Z' }] };
/** The same inside an array cell of TSV (the cell is JSON text, then sanitised). */
const HSJ = 'a\\u001b[2Jb\\u001b]0;title\\u0007c\\x9bd\\u202ee\\tf\\ng';

/** Raw characters that must never reach a screen (\t and \n are checked separately). */
// eslint-disable-next-line no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const SPINNER_CODES = /\r\u001b\[2K|\u001b\[\?25[lh]/g;

type Mode = 'tty' | 'piped' | 'json';
const MODES: Mode[] = ['tty', 'piped', 'json'];

function describeRaw(text: string): string {
  const m = RAW.exec(text);
  if (!m) return '';
  return `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: …${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}…`;
}

/** No raw control character; tabs only where TSV columns are (checked by `tsvTabs`). */
function expectClean(text: string, where: string, tabsAllowed = false): void {
  expect(describeRaw(text), `${where} holds a raw control character`).toBe('');
  if (!tabsAllowed) expect(text.includes('\t'), `${where} holds a raw tab: ${JSON.stringify(text)}`).toBe(false);
}

interface CheckOptions {
  /** Escaped forms that must appear (stdout or stderr), in human modes. */
  shown?: string[];
  /** Piped, when it shows less or otherwise than a terminal (default: `shown`). */
  pipedShown?: string[];
  /** --json stdout is one document per line (webhook listen). */
  jsonLines?: boolean;
  /** Strings that --json must give back exactly (stdout or stderr document). */
  values?: string[];
  /** TSV: every stdout line has exactly this many tabs (the columns). */
  tsvTabs?: number;
  /** stderr carries a spinner on a terminal: its own cursor codes are removed first. */
  spinner?: boolean;
}

/** Collects every string inside a parsed JSON value. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

function check(r: CliResult, mode: Mode, what: string, opts: CheckOptions = {}): void {
  const err = opts.spinner ? r.stderr.replace(SPINNER_CODES, '') : r.stderr;
  expectClean(r.stdout, `${what} [${mode}] stdout`, mode === 'piped');
  expectClean(err, `${what} [${mode}] stderr`);
  if (mode === 'piped' && opts.tsvTabs !== undefined) {
    for (const line of r.stdout.split('\n').filter(Boolean)) {
      expect(line.split('\t').length - 1, `${what}: TSV line ${JSON.stringify(line)}`).toBe(opts.tsvTabs);
    }
  }
  if (mode === 'json') {
    const texts = opts.jsonLines ? r.stdout.split('\n') : [r.stdout];
    // With --json a failure is one {"error": ...} object on stderr.
    if (err.startsWith('{"error"')) texts.push(err);
    const docs = texts.filter((s) => s.trim() !== '').map((s) => JSON.parse(s) as unknown);
    const all = strings(docs);
    for (const v of opts.values ?? []) expect(all.some((s) => s.includes(v)), `${what} --json lost ${JSON.stringify(v)}: ${r.stdout}${err}`).toBe(true);
  } else {
    const shown = mode === 'piped' ? (opts.pipedShown ?? opts.shown ?? []) : (opts.shown ?? []);
    for (const s of shown) {
      // An array cell of TSV is JSON text: its escapes are JSON's (\u001b), then sanitised.
      const found = (r.stdout + err).includes(s) || (mode === 'piped' && r.stdout.includes(s.split(HS).join(HSJ)));
      expect(found, `${what} [${mode}] does not show ${JSON.stringify(s)}:\n${r.stdout}${err}`).toBe(true);
    }
  }
}

function cli(args: string[], env: Record<string, string | undefined>, mode: Mode, extra: CliOptions = {}): Promise<CliResult> {
  return runCli(mode === 'json' ? ['--json', ...args] : args, {
    env,
    ...extra,
    // A wide terminal, so tables show each escaped value whole (at 80 columns they would cut
    // it in the middle, which is safe too: the cut is made in the escaped text).
    ...(mode === 'tty' ? { tty: { stdout: true, stderr: true }, columns: 400 } : {}),
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// ---- the real sandbox: memos (decrypted locally), a webhook URL, a key name ----------------------

describe('the real sandbox: memos, a webhook URL and a key name carrying escape sequences', () => {
  let t: TestSandbox;
  let agentKey: string;
  let heldId: string;
  let transferId: string;
  const TXN_RE = /txn_[A-Za-z0-9]{24}/;

  beforeAll(async () => {
    t = await startTestSandbox();
    const ok = (args: string[], env: Record<string, string> = {}) => t.svcOk(args, { env });
    await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
    agentKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/bot', '1000']);
    // The issue: an agent's transfer held for approval, with the attack memo.
    const held = await t.svc(['--json', 'transfer', 'send', '@acme', '60', '--memo', ATTACK], { env: { SVC_API_KEY: agentKey } });
    expect(held.code, held.stderr).toBe(8);
    heldId = TXN_RE.exec(held.stdout)![0];
    // A transfer of the owner's own with a memo holding every class.
    const sent = await t.svcJson<{ transfer_id: string }>(['transfer', 'send', '@acme', '1.25', '--memo', H]);
    transferId = sent.transfer_id;
    expect(t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey, 'the owner reads memos locally').toBeTruthy();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('pending ls as the owner (the issue): the attack memo is shown escaped, never raw', async () => {
    for (const mode of MODES) {
      const r = await cli(['pending', 'ls', ...(mode === 'json' ? ['--decrypt'] : [])], t.env, mode);
      expect(r.code, r.stderr).toBe(0);
      check(r, mode, 'pending ls', { shown: [ATTACK_SHOWN, heldId], values: [ATTACK], tsvTabs: 7 });
      if (mode === 'json') expect((JSON.parse(r.stdout) as Array<{ memo?: string }>)[0]!.memo).toBe(ATTACK);
      if (mode === 'tty') expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(2); // header + one row: no line break smuggled in
    }
  });

  it('transfer get and transfer ls as the sender: the memo is escaped in every mode, exact in --json --decrypt', async () => {
    for (const mode of MODES) {
      const r = await cli(['transfer', 'get', transferId, ...(mode === 'json' ? ['--decrypt'] : [])], t.env, mode);
      expect(r.code, r.stderr).toBe(0);
      check(r, mode, 'transfer get', { shown: [HS], values: [H], tsvTabs: 1 });
      if (mode === 'tty') expect(r.stdout).toMatch(new RegExp(`^Memo +${HS.replace(/[\\[\]]/g, '\\$&')}$`, 'm'));
      if (mode === 'piped') expect(r.stdout).toContain(`memo\t${HS}\n`);
      if (mode === 'json') expect((JSON.parse(r.stdout) as { memo?: string }).memo).toBe(H);

      const ls = await cli(['transfer', 'ls', ...(mode === 'json' ? ['--decrypt'] : [])], t.env, mode);
      expect(ls.code, ls.stderr).toBe(0);
      check(ls, mode, 'transfer ls', { values: [H], tsvTabs: 8 });
      if (mode === 'json') {
        const mine = (JSON.parse(ls.stdout) as Array<{ transfer_id: string; memo?: string }>).find((x) => x.transfer_id === transferId);
        expect(mine?.memo).toBe(H);
      }
    }
  });

  it('the agent sees its own held transfer answer safely; the owner approves it safely', async () => {
    for (const mode of MODES) {
      const r = await cli(['transfer', 'send', '@acme', '51', '--memo', ATTACK], { ...t.env, SVC_API_KEY: agentKey }, mode);
      expect(r.code, r.stderr).toBe(8);
      check(r, mode, 'transfer send (held)', { tsvTabs: 1 });
    }
    const approve = await cli(['pending', 'approve', heldId], t.env, 'tty');
    expect(approve.code, approve.stderr).toBe(0);
    check(approve, 'tty', 'pending approve', { shown: [heldId] });
  });

  it('a webhook URL with escape sequences in its path and query: create, ls, rm', async () => {
    // Loopback http on the discard port: nothing is delivered anywhere.
    const url = `http://127.0.0.1:9/hook${ESC}[2J${CSI8}x?q=${RLO}1&t=${ESC}]0;t${BEL}\tz`;
    const shownUrl = 'http://127.0.0.1:9/hook\\x1b[2J\\x9bx?q=\\u202e1&t=\\x1b]0;t\\x07\\tz';
    const ids: string[] = [];
    for (const mode of MODES) {
      const r = await cli(['webhook', 'create', url, '--events', 'agent.policy.updated'], t.env, mode);
      expect(r.code, r.stderr).toBe(0);
      check(r, mode, 'webhook create', { shown: [shownUrl], values: [url] });
      ids.push(/wh_[A-Za-z0-9]+/.exec(r.stdout)![0]);
      if (mode === 'piped') {
        // The record is TSV pairs; the secret follows on its own line.
        for (const line of r.stdout.trim().split('\n').slice(0, -1)) expect(line.split('\t')).toHaveLength(2);
      }
    }
    for (const mode of MODES) {
      const r = await cli(['webhook', 'ls'], t.env, mode);
      expect(r.code, r.stderr).toBe(0);
      check(r, mode, 'webhook ls', { shown: [shownUrl], values: [url], tsvTabs: 4 }); // id, url, events, created_at, status
    }
    const rm = await cli(['webhook', 'rm', ids[0]!, '--yes'], t.env, 'tty');
    expect(rm.code, rm.stderr).toBe(0);
    check(rm, 'tty', 'webhook rm');
  });

  it('a sandbox key name with C1 and bidi characters (the sandbox refuses only C0): key create, key ls', async () => {
    const name = `ci ${CSI8}2J ${RLO}evil`;
    const shownName = 'ci \\x9b2J \\u202eevil';
    const created = await cli(['sandbox', 'key', 'create', '--account', '@alice', '--name', name], t.env, 'tty');
    expect(created.code, created.stderr).toBe(0);
    check(created, 'tty', 'sandbox key create', { shown: [`"${shownName}" for @alice`] });
    const json = await cli(['sandbox', 'key', 'create', '--account', '@alice', '--name', name], t.env, 'json');
    expect(json.code, json.stderr).toBe(0);
    check(json, 'json', 'sandbox key create', { values: [name] });
    for (const mode of MODES) {
      const r = await cli(['sandbox', 'key', 'ls', '--account', '@alice'], t.env, mode);
      expect(r.code, r.stderr).toBe(0);
      check(r, mode, 'sandbox key ls', { shown: [shownName], values: [name], tsvTabs: 7 });
    }
  });
});

// ---- a hostile service: every string of every answer ---------------------------------------------

const TS = '2026-11-23T12:00:00.000Z';
const LATER = new Date(Date.now() + 3_600_000).toISOString();

function hostileService(): (req: RecordedRequest) => Reply {
  const agent = { account_id: 'acc_1', handle: `@alice/${H}`, public_key: `0x${H}`, status: H, spend_policy_id: `pol_${H}` };
  const policy = { policy_id: `pol_${H}`, daily_limit_usdc: 10, allowed_recipients: [`@acme${H}`], updated_at: TS };
  const transfer = (status: string) => ({
    transfer_id: `tr_${H}`, status, from: `@alice${H}`, to: `@acme${H}`, confidential: true, tx_hash: `0x${H}`, created_at: TS, asset: `USDG${H}`,
  });
  const webhook = { webhook_id: `wh_${H}`, url: `https://hooks.example.com/${H}`, events: [`transfer.confirmed${H}`], created_at: TS };
  const apiKey = { key_id: `key_${H}`, name: H, account: `@alice${H}`, key_hint: `svc_test_****${H}`, created_at: TS, request_count: 1 };
  return (req) => {
    const path = req.url.split('?')[0]!;
    const m = `${req.method} ${path}`;
    if (m === 'GET /v1/accounts/me') {
      return { status: 200, body: { account_id: `acc_${H}`, handle: `@alice${H}`, type: 'personal', public_key: `0x${H}`, kyc_status: 'verified', created_at: TS } };
    }
    if (m === 'GET /v1/accounts/me/balances') return { status: 200, body: { balances: [{ asset: `USDG${H}`, nonzero: true }] } };
    if (m === 'GET /v1/accounts/me/agents') return { status: 200, body: { agents: [agent] } };
    if (m === 'GET /v1/agents/acc_1/spend-policy') return { status: 200, body: policy };
    if (m === 'PATCH /v1/agents/acc_1/spend-policy') return { status: 200, body: { ...policy, daily_limit_usdc: 5 } };
    if (m === 'POST /v1/agents/acc_1/suspend') return { status: 200, body: agent };
    if (m === 'GET /v1/transfers') return { status: 200, body: { transfers: [transfer('confirmed')], limit: 20, offset: 0, has_more: false } };
    if (m.startsWith('GET /v1/transfers/')) return { status: 200, body: transfer('confirmed') };
    if (m === 'POST /v1/transfers') {
      const body = JSON.parse(req.body) as { amount: string };
      if (body.amount === '6') return { status: 201, body: transfer('pending') };
      return { status: 202, body: { transaction_id: `txn_${H}`, status: `pending_approval${H}`, expires_at: LATER } };
    }
    if (m === 'GET /v1/agents/transactions/pending') {
      return { status: 200, body: { pending: [{ transaction_id: `txn_${H}`, agent: `@alice/bot${H}`, to: `@acme${H}`, requested_at: TS, expires_at: LATER, asset: `USDG${H}`, ...QUORUM }] } };
    }
    // The held transaction as a resource (beyond the spec): every string field hostile.
    const held = {
      transaction_id: `txn_${H}`, status: 'approved', agent: `@alice/bot${H}`, to: `@acme${H}`, asset: `USDG${H}`, requested_at: TS, expires_at: LATER,
      decided_at: TS, decided_by: { key_name: H, account: `@alice${H}` }, rule: `hitl_threshold${H}`, reason: `why ${H}`, transfer_id: `tr_${H}`, ...QUORUM,
    };
    if (m === 'GET /v1/agents/transactions') return { status: 200, body: { transactions: [held], limit: 100, offset: 0, has_more: false } };
    if (/^GET \/v1\/agents\/transactions\/[^/]+$/.test(m)) return { status: 200, body: held };
    if (/^POST \/v1\/agents\/transactions\/[^/]+\/approve$/.test(m)) {
      return { status: 200, body: { transaction_id: `txn_${H}`, status: `approved${H}`, transfer_id: `tr_${H}` } };
    }
    if (m === 'GET /v1/webhooks') return { status: 200, body: { webhooks: [webhook] } };
    if (m === 'POST /v1/webhooks') return { status: 201, body: { ...webhook, secret: `whsec_${H}0123456789abcdef` } };
    if (/^GET \/v1\/webhooks\/[^/]+\/deliveries$/.test(m)) {
      return {
        status: 200,
        body: { deliveries: [{ delivery_id: `dl_${H}`, event_id: `evt_${H}`, event: `transfer.confirmed${H}`, attempt: 1, error: `connect failed ${H}`, duration_ms: 3, attempted_at: TS, retry_count: 0, state: 'exhausted' }] },
      };
    }
    if (/^POST \/v1\/webhooks\/[^/]+\/replay\/[^/]+$/.test(m)) return { status: 202, body: { delivery_id: `dl_${H}` } };
    if (/^DELETE \/v1\/webhooks\/[^/]+$/.test(m)) return { status: 200, body: { webhook_id: `wh_${H}`, deleted: true } };
    // The sandbox's control API, as a hostile server would answer it.
    if (m === 'GET /_sandbox/clock') return { status: 200, headers: { 'x-request-id': `req_${CSI8}31m` }, body: { now: TS, offset_ms: 0 } };
    if (m === 'POST /_sandbox/fund') return { status: 200, body: { ok: true, handle: `@alice${H}`, asset: `USDG${H}` } };
    if (m === 'POST /_sandbox/keys') return { status: 201, body: { ...apiKey, key: `svc_test_${H}` } };
    if (m === 'GET /_sandbox/keys') return { status: 200, body: { keys: [apiKey] } };
    if (/^POST \/_sandbox\/keys\/[^/]+\/revoke$/.test(m)) return { status: 200, body: { ...apiKey, revoked_at: TS } };
    if (m === 'POST /_sandbox/trigger') {
      return {
        status: 202,
        body: {
          event: `transfer.confirmed${H}`, event_id: `evt_${H}`, account: `@alice${H}`, sample: true,
          deliveries: [{ delivery_id: `dl_${H}`, webhook_id: `wh_${H}`, event_id: `evt_${H}`, event: `transfer.confirmed${H}`, replay: false, state: 'queued' }],
        },
      };
    }
    if (m === 'POST /_sandbox/reset') {
      return {
        status: 200,
        body: { ok: true, seeded: [{ account_id: `acc_${H}`, handle: `@x${H}`, type: 'personal', kyc_status: 'verified', public_key: `0x${H}`, confidential_ready: true, key_id: `key_${H}`, api_key: `svc_test_${H}` }] },
      };
    }
    return { status: 404, body: { error: { code: 'not_found', message: `no route ${m}`, request_id: 'req_1' } } };
  };
}

describe('a hostile service: every string it answers is shown escaped', () => {
  let server: ScriptedServer;
  let configDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startScriptedServer(hostileService());
    configDir = mkdtempSync(join(tmpdir(), 'svc-safety-'));
    // A sandbox profile for the admin commands, pointing at the hostile server.
    new ProfileStore(configDir).set('sandbox', { apiKey: UNKNOWN_TEST_KEY, baseUrl: server.url, sandboxAdminToken: 'tok' }, { makeCurrent: true });
    env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1', SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
  });
  afterAll(async () => {
    await server?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  // [args, expected exit code, escaped forms a person must see, TSV tabs per stdout line, piped shows]
  const cases: Array<[string[], number, string[], number | undefined, string[]?]> = [
    [['account'], 0, [`@alice${HS}`], 1],
    [['balance'], 0, [`USDG${HS}`], 1],
    // A person's `agent ls` shows limits, not ids (issue 25): the policy id stays in TSV and `agent get`.
    [['agent', 'ls'], 0, [`@alice/${HS}`], 10, [`@alice/${HS}`, `pol_${HS}`]],
    [['agent', 'get', 'acc_1'], 0, [`@alice/${HS}`, `pol_${HS}`, `@acme${HS}`], 1],
    [['agent', 'policy', 'get', 'acc_1'], 0, [`@alice/${HS}`, `@acme${HS}`], 1, [`@acme${HS}`]],
    [['agent', 'policy', 'set', 'acc_1', '--daily-limit', '5'], 0, [`@alice/${HS}`, `allowed_recipients: @acme${HS} → none`], 1],
    [['agent', 'suspend', 'acc_1'], 0, [`suspended @alice/${HS}`], 1],
    [['agent', 'policy', 'check', 'acc_1', '--to', '@acme', '--amount', '1'], 1, [`@acme${HS}`], undefined],
    [['transfer', 'get', 'tr_1'], 0, [`tr_${HS}`, `@acme${HS}`, `0x${HS}`], 1],
    [['transfer', 'get', 'tr_1', '--wait'], 0, [`tr_${HS}`, `@alice${HS}`], 1],
    [['transfer', 'ls'], 0, [`tr_${HS}`, `@acme${HS}`], 8],
    [['transfer', 'send', '@acme', '5'], 8, [`svc pending approve 'txn_${HS}'`, `pending_approval${HS}`], 1], // the id one quoted word (hint-quoting.test.ts)
    [['transfer', 'send', '@acme', '6', '--wait'], 0, [`submitted transfer tr_${HS} (pending)`], 1],
    [['pending', 'ls'], 0, [`txn_${HS}`, `@alice/bot${HS}`, `@acme${HS}`], 10],
    [['pending', 'approve', 'txn_1'], 0, [`submitted as transfer tr_${HS}`, `approved${HS}`], 1],
    [['pending', 'get', 'txn_1'], 0, [`held transaction txn_${HS}`, `@alice/bot${HS}`, `key "${HS}" of @alice${HS}`, `1 of 2: key "${HS}" of @alice${HS}`, `hitl_threshold${HS}`, `why ${HS}`, `tr_${HS}`], 1, [`txn_${HS}`, `@alice/bot${HS}`, `@alice${HS}`, `why ${HS}`, `tr_${HS}`]],
    [['pending', 'wait', 'txn_1'], 0, [`approved txn_1 by key "${HS}" of @alice${HS} (1 of 2 approvals: key "${HS}" of @alice${HS}): submitted as transfer tr_${HS}`, `held transaction txn_${HS}`], 1, [`approved txn_1 by key "${HS}" of @alice${HS} (1 of 2 approvals: key "${HS}" of @alice${HS}): submitted as transfer tr_${HS}`, `tr_${HS}`]],
    [['pending', 'ls', '--all'], 0, [`txn_${HS}`, `@acme${HS}`, `tr_${HS}`, `key "${HS}" of @alice${HS}`], 14, [`txn_${HS}`, `@alice/bot${HS}`, `@alice${HS}`, `why ${HS}`, `tr_${HS}`]],
    [['webhook', 'ls'], 0, [`wh_${HS}`, `https://hooks.example.com/${HS}`, `transfer.confirmed${HS}`], 4],
    [['webhook', 'deliveries', 'wh_1'], 0, [`evt_${HS}`, `connect failed ${HS}`], 7, [`evt_${HS}`]],
    [['webhook', 'replay', 'wh_1', 'evt_1'], 0, [`as delivery dl_${HS}`], undefined],
    [['webhook', 'rm', 'wh_1', '--yes'], 0, [], undefined],
    [['api', 'GET', '/v1/accounts/me'], 0, [], undefined],
    [['sandbox', 'fund', '@alice', '5'], 0, [`funded @alice${HS} with 5.00 USDG${HS}`], undefined],
    [['sandbox', 'key', 'create', '--account', '@alice'], 0, [`svc_test_${HS}`, `created key_${HS} "${HS}" for @alice${HS}`], 0],
    [['sandbox', 'key', 'ls'], 0, [`key_${HS}`, `svc_test_****${HS}`], 7],
    [['sandbox', 'key', 'revoke', 'key_1', '--yes'], 0, [`revoked key_${HS} (svc_test_****${HS}, @alice${HS})`], undefined],
    [['sandbox', 'trigger', 'transfer.confirmed', '--account', '@alice'], 0, [`evt_${HS}`, `triggered sample transfer.confirmed${HS} for @alice${HS}`, `(wh_${HS})`], 0],
    [['sandbox', 'reset', '--yes'], 0, [`@x${HS}`, `svc_test_${HS}`], 5],
  ];

  for (const [args, code, shown, tabs, pipedShown] of cases) {
    it(`svc ${args.join(' ')}`, async () => {
      for (const mode of MODES) {
        const r = await cli(args, env, mode);
        expect(r.code, `[${mode}] ${r.stderr}`).toBe(code);
        check(r, mode, args.join(' '), {
          shown, values: [H], spinner: mode === 'tty' && args.includes('--wait'),
          ...(pipedShown ? { pipedShown } : {}), ...(tabs !== undefined ? { tsvTabs: tabs } : {}),
        });
      }
    });
  }

  it('webhook create: the secret (stdout) and the record are escaped; --json gives them back exactly', async () => {
    for (const mode of MODES) {
      const r = await cli(['webhook', 'create', 'https://hooks.example.com/x', '--events', 'all'], env, mode);
      expect(r.code, r.stderr).toBe(0);
      check(r, mode, 'webhook create', { shown: [`wh_${HS}`, `whsec_${HS}0123456789abcdef\n`], values: [`whsec_${H}0123456789abcdef`] });
    }
  });

  it('the transfer --wait spinner on a terminal shows the service\'s id escaped', async () => {
    const r = await cli(['transfer', 'send', '@acme', '6', '--wait'], env, 'tty');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`waiting for transfer tr_${HS} to settle`);
    check(r, 'tty', 'transfer send --wait', { spinner: true });
  });

  it('--verbose trace lines of the sandbox admin commands are escaped (a request id header with a C1 byte)', async () => {
    const r = await cli(['--verbose', 'sandbox', 'clock'], env, 'tty');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('request_id=req_\\x9b31m');
    check(r, 'tty', 'sandbox clock --verbose');
  });
});

// ---- error messages from the service ------------------------------------------------------------

describe('a service whose error answers carry escape sequences', () => {
  let server: ScriptedServer;
  let configDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({
      status: 422,
      headers: { 'x-request-id': `req_${CSI8}2J` },
      body: { error: { code: `bad${ESC}[2J`, message: H, request_id: `req_${RLO}1`, reason: `why${ESC}]0;t${BEL}` } },
    }));
    configDir = mkdtempSync(join(tmpdir(), 'svc-safety-'));
    env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1', SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
  });
  afterAll(async () => {
    await server?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const commands = [
    ['account'], ['balance'], ['agent', 'ls'], ['transfer', 'ls'], ['transfer', 'get', 'tr_1'], ['transfer', 'send', '@acme', '1'],
    ['pending', 'ls'], ['pending', 'approve', 'txn_1'], ['webhook', 'ls'], ['webhook', 'deliveries', 'wh_1'], ['api', 'GET', '/v1/anything'],
  ];
  for (const args of commands) {
    it(`svc ${args.join(' ')}: the error line and --json error object`, async () => {
      for (const mode of MODES) {
        const r = await cli(args, env, mode);
        expect(r.code, r.stderr).not.toBe(0);
        expect(r.stdout).toBe('');
        check(r, mode, args.join(' '), { shown: [`error: ${HS} (bad\\x1b[2J: why\\x1b]0;t\\x07, request req_\\u202e1)`], values: [H, `bad${ESC}[2J`] });
      }
    });
  }
});

// ---- the config file and a policy file ----------------------------------------------------------

describe('profiles from a config file and policy files carrying escape sequences', () => {
  let configDir: string;
  let env: Record<string, string>;
  const NAME = `ev${ESC}[2Jil${CSI8}`;
  const NAME_SHOWN = 'ev\\x1b[2Jil\\x9b';
  const URL_TEXT = `https://api.example.com/${ESC}]0;t${BEL}${RLO}`;
  const URL_SHOWN = 'https://api.example.com/\\x1b]0;t\\x07\\u202e';
  beforeAll(() => {
    configDir = mkdtempSync(join(tmpdir(), 'svc-safety-'));
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({
      current: 'good',
      profiles: {
        good: { apiKey: UNKNOWN_TEST_KEY, baseUrl: URL_TEXT },
        [NAME]: { apiKey: UNKNOWN_TEST_KEY, baseUrl: `not a url ${ESC}[2J${RLO}\nx` },
        bad: { apiKey: `svc_test_${ESC}[2J`, baseUrl: 'http://127.0.0.1:1' },
      },
    }), { mode: 0o600 });
    env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
  });
  afterAll(() => {
    rmSync(configDir, { recursive: true, force: true });
  });

  it('profile ls and profile show', async () => {
    for (const mode of MODES) {
      const ls = await cli(['profile', 'ls'], env, mode);
      expect(ls.code, ls.stderr).toBe(0);
      check(ls, mode, 'profile ls', { shown: [NAME_SHOWN, URL_SHOWN, 'not a url \\x1b[2J\\u202e\\nx'], values: [NAME, URL_TEXT], tsvTabs: 4 });
      const show = await cli(['profile', 'show'], env, mode);
      expect(show.code, show.stderr).toBe(0);
      check(show, mode, 'profile show', { shown: [URL_SHOWN], values: [URL_TEXT], tsvTabs: 1 });
      const named = await cli(['profile', 'show', NAME], env, mode);
      expect(named.code, named.stderr).toBe(0);
      check(named, mode, 'profile show <name>', { shown: [NAME_SHOWN], values: [NAME], tsvTabs: 1 });
    }
  });

  it('a profile\'s bad base URL or key in an error; completion candidates; use and rm', async () => {
    for (const mode of MODES) {
      const r = await cli(['--profile', NAME, 'account'], env, mode);
      expect(r.code).toBe(2);
      check(r, mode, 'account with a bad base URL', { shown: ['base URL "not a url \\x1b[2J\\u202e\\nx" is not a valid URL'], values: [`not a url ${ESC}[2J`] });
      const bad = await cli(['--profile', 'bad', 'account'], env, mode);
      expect(bad.code).toBe(3);
      check(bad, mode, 'account with a bad key');
    }
    const complete = await cli(['__complete', 'profiles'], env, 'piped');
    expect(complete.code).toBe(0);
    // A name with control characters is left out of the candidates: offered escaped it would be
    // another word, naming no profile (docs/completion.md).
    expect(complete.stdout.split('\n')).toEqual(['bad', 'good', '']);
    check(complete, 'piped', '__complete profiles');
    const use = await cli(['profile', 'use', NAME], env, 'tty');
    expect(use.code, use.stderr).toBe(0);
    check(use, 'tty', 'profile use', { shown: [`now using profile "${NAME_SHOWN}"`] });
    const rm = await cli(['profile', 'rm', NAME, '--yes'], env, 'tty');
    expect(rm.code, rm.stderr).toBe(0);
    check(rm, 'tty', 'profile rm', { shown: [`removed profile "${NAME_SHOWN}"`] });
  });

  it('policy files: an unknown field, a bad recipient and text that is not JSON are reported escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-policy-'));
    try {
      const files: Array<[string, string, string]> = [
        ['field.json', JSON.stringify({ [`daily${ESC}[2J`]: 5 }), 'daily\\x1b[2J is not a spend policy field'],
        ['recipient.json', JSON.stringify({ allowed_recipients: [`@acme${H}`] }), `(got "@acme${HS}")`],
        ['text.json', `x${ESC}[2J${RLO}`, 'x\\x1b[2J\\u202e'],
      ];
      for (const [file, content, shown] of files) {
        writeFileSync(join(dir, file), content);
        for (const mode of MODES) {
          // Checked locally: nothing is sent (there is no service at this address).
          const r = await cli(['agent', 'create', 'bot', '--policy-file', join(dir, file)], { ...env, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: 'http://127.0.0.1:1' }, mode);
          expect(r.code, r.stderr).toBe(2);
          check(r, mode, `agent create --policy-file ${file}`, { shown: [shown] });
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---- webhook listen: what a sender posts ---------------------------------------------------------

describe('webhook listen: the fields of a delivery and the service\'s answers', () => {
  const SECRET = 'whsec_listen_test_secret_0123456789';

  async function listenWith(args: string[], env: Record<string, string>, mode: Mode, deliver: (url: string) => Promise<void>, lines: number): Promise<CliResult> {
    const ac = new AbortController();
    let out = '';
    let err = '';
    const done = cli(['webhook', 'listen', ...args], env, mode, {
      interrupt: ac.signal,
      onStdout: (s) => void (out += s),
      onStderr: (s) => void (err += s),
    });
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+\//.test(err), 'the listener');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(err)![1]!;
    await deliver(url);
    await until(() => out.split('\n').filter(Boolean).length >= lines, `${lines} lines on stdout`);
    ac.abort('SIGINT');
    return done;
  }

  function post(url: string, body: string, headers: Record<string, string>): Promise<Response> {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  }

  it('a signed delivery, a forged one with hostile headers, and a signed null body: escaped lines, exact JSON', async () => {
    const payload = { event: `transfer.confirmed${H}`, event_id: `evt_${H}`, account: `@alice${H}`, direction: 'received', counterparty: `@acme${H}`, note: ATTACK };
    const body = JSON.stringify(payload);
    for (const mode of MODES) {
      const r = await listenWith(['--no-subscribe', '--secret-env', 'WH_SECRET', '--tolerance', '0'], { NO_COLOR: '1', WH_SECRET: SECRET }, mode, async (url) => {
        expect((await post(url, body, { 'x-service-signature': signPayload(SECRET, body) })).status).toBe(200);
        const forged = await post(url, `not json ${ESC}[2J${CSI8}`, { 'x-service-signature': 'ab'.repeat(32), 'x-service-event-id': `evt_${CSI8}31m`, 'x-service-delivery-attempt': '2' });
        expect(forged.status).toBe(401);
        expect((await post(url, 'null', { 'x-service-signature': signPayload(SECRET, 'null') })).status).toBe(400); // signed, but not a delivery
      }, 3);
      expect(r.code, r.stderr).toBe(130);
      // A forged delivery is not read, its X-Service-Event-Id header included: nothing of it reaches the screen.
      check(r, mode, 'webhook listen', { jsonLines: true, shown: [`transfer.confirmed${HS}`, `evt_${HS} @alice${HS} ← @acme${HS}`, '(unverified) (attempt 2)', '(malformed)  ✗ body is not a JSON object'] });
      if (mode === 'json') {
        const docs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; event_id: string; payload: unknown });
        expect(docs[0]!.payload).toEqual(payload); // exact round trip, the attack memo included
        expect(docs[0]!.event).toBe(payload.event);
        expect(docs[1]).not.toHaveProperty('event_id');
        expect(docs[2]).toMatchObject({ status: 400, problem: 'body is not a JSON object' });
        expect(docs[2]).not.toHaveProperty('payload');
      } else {
        expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(3); // one line per delivery
      }
    }
  });

  it('a subscription id, secret and delete error from the service are escaped on stderr', async () => {
    const server = await startScriptedServer((req) => {
      if (req.method === 'POST') return { status: 201, body: { webhook_id: `wh_${H}`, url: 'x', events: ['transfer.confirmed'], secret: `whsec_${H}0123456789abcdef`, created_at: TS } };
      if (req.method === 'DELETE') return { status: 400, body: { error: { code: 'bad_request', message: `cannot delete ${H}`, request_id: 'req_1' } } };
      return { status: 200, body: {} };
    });
    const configDir = mkdtempSync(join(tmpdir(), 'svc-safety-'));
    try {
      const env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1', SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
      for (const extra of [[], ['--print-secret']]) {
        for (const mode of MODES) {
          const r = await listenWith(['--temporary', ...extra], env, mode, async () => {}, 0);
          expect(r.code, r.stderr).toBe(130);
          check(r, mode, 'webhook listen (subscribed)', {
            shown: [
              `(subscription wh_${HS}: all events)`,
              `signing secret: whsec_${HS}0123456789abcdef\n`, // always whole, on stderr (--print-secret changes nothing)
              `warning: could not delete subscription wh_${HS}: cannot delete ${HS} (delete it with \`svc webhook rm 'wh_${HS}' --yes\`)`,
            ],
          });
          // stderr is for a person even with --json: it is checked as text.
          expectClean(r.stderr, `webhook listen [${mode}] stderr`);
          expect(r.stderr).toContain(`subscription wh_${HS}`);
        }
      }
    } finally {
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

// ---- pending review on a real terminal ------------------------------------------------------------

const pexec = promisify(execFile);
async function paneTitle(term: TmuxSession): Promise<string> {
  const { stdout } = await pexec('tmux', ['-L', term.socket, 'display-message', '-p', '-t', 'test:0.0', '#{pane_title}']);
  return stdout.trim();
}

describe.skipIf(!hasTmux())('svc pending review on a terminal: hostile text is shown escaped', () => {
  afterEach(killAllTmux);

  it('the issue\'s attack memo (real sandbox): the screen is not cleared, the title not changed', async () => {
    const t = await startTestSandbox();
    try {
      const ok = (args: string[], env: Record<string, string> = {}) => t.svcOk(args, { env });
      await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
      const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
      await ok(['sandbox', 'fund', '@alice/bot', '1000']);
      const held = await ok(['--json', 'transfer', 'send', '@acme', '60', '--memo', ATTACK], { SVC_API_KEY: key });
      const id = /txn_[A-Za-z0-9]{24}/.exec(held.stdout)![0];

      const term = await startTmux([process.execPath, BIN, 'pending', 'review'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
      });
      const titleBefore = await paneTitle(term);
      const screen = await term.waitFor(`Held transaction 1 of 1: ${id}`);
      expect(screen).toContain(`memo         ${ATTACK_SHOWN}`);
      expect(screen).toMatch(/agent\s+@alice\/bot/);
      await term.sendText('q');
      expect(await term.waitForExit()).toBe(0);
      const after = await term.capture();
      // Nothing cleared the screen or moved the cursor home: the prompt line is still above the tally.
      expect(after).toContain(`Held transaction 1 of 1: ${id}`);
      expect(after).toContain('approved 0, rejected 0, skipped 0, expired 0');
      expect(await paneTitle(term)).not.toContain('pwned');
      expect(await paneTitle(term)).toBe(titleBefore);

      // The issue's own command on the approver's terminal: `svc pending ls`.
      const ls = await startTmux([process.execPath, BIN, 'pending', 'ls'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
        width: 200,
      });
      const lsTitle = await paneTitle(ls);
      expect(await ls.waitForExit()).toBe(0);
      const table = await ls.capture();
      expect(table).toMatch(/^ID +AGENT +TO +AMOUNT +MEMO/m); // the header was not cleared away
      expect(table).toContain(`${id}  @alice/bot`);
      expect(table).toContain(ATTACK_SHOWN);
      expect(await paneTitle(ls)).toBe(lsTitle);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('a hostile service: agent, recipient, id and an error message are escaped in the prompt, the confirmation and the result', async () => {
    const server = await startScriptedServer((req) => {
      if (req.method === 'GET') {
        return { status: 200, body: { pending: [{ transaction_id: `txn_${H}`, agent: `@alice/bot${ATTACK}`, to: `@acme${H}`, requested_at: TS, expires_at: LATER }] } };
      }
      return { status: 402, body: { error: { code: 'insufficient_balance', message: `no funds ${ESC}]0;pwned${BEL}${ESC}[2J`, request_id: 'req_1' } } };
    }, { tls: true }); // a live key goes over https only
    const configDir = mkdtempSync(join(tmpdir(), 'svc-safety-'));
    try {
      const term = await startTmux([process.execPath, BIN, 'pending', 'review'], {
        env: {
          PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: configDir, NO_COLOR: '1',
          // A live key: only then does review ask "are you sure" (restating what is approved).
          SVC_API_KEY: FAKE_LIVE_KEY, SVC_BASE_URL: server.url, NODE_EXTRA_CA_CERTS: loopbackCaFile(),
        },
        width: 320, // the confirmation quotes long hostile fields: keep it on one line
      });
      const titleBefore = await paneTitle(term);
      let screen = await term.waitFor(`Held transaction 1 of 1: txn_${HS}`);
      expect(screen).toContain(`agent        @alice/bot${ATTACK_SHOWN}`);
      expect(screen).toContain(`to           @acme${HS}`);
      await term.sendText('a');
      screen = await term.waitFor(`Approve an encrypted amount from @alice/bot${ATTACK_SHOWN} to @acme${HS} on a LIVE account?`);
      await term.sendText('y');
      await term.sendKeys('Enter');
      screen = await term.waitFor(`✗ txn_${HS} not sent: no funds \\x1b]0;pwned\\x07\\x1b[2J; it stays pending`);
      expect(await term.waitForExit()).toBe(0);
      screen = await term.capture();
      expect(screen).toContain(`Held transaction 1 of 1: txn_${HS}`); // not cleared
      expect(screen).toContain('approved 0, rejected 0, skipped 1, expired 0');
      expect(await paneTitle(term)).toBe(titleBefore);
    } finally {
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  }, 60_000);
});
