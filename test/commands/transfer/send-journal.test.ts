// `transfer send` never pays twice under a key it knows, and never loses an accepted transfer
// (issue 21). The service forgets an Idempotency-Key after 24 hours; svc's journal of keys
// (config dir, sends/) remembers them for 90 days, so the same command, however late, shows the
// earlier transfer instead of paying again. A failure after the service accepted a transfer (the
// wait's connection drops, Ctrl-C, --timeout-wait) names the transfer and its key.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { hasTool } from '../../helpers/tools.js';
import { runCli, virtualClock, type CliResult } from '../../helpers/cli.js';
import { scriptedPrompter } from '../../helpers/prompter.js';
import { answeringAccount, startScriptedServer, UNKNOWN_TEST_KEY, type Handler, type ScriptedServer } from '../../helpers/scripted-server.js';

interface Transfer {
  transfer_id: string;
  status: string;
  to: string;
  idempotency_key?: string;
  [k: string]: unknown;
}

/** Amounts and memos that must never reach the journal (a distinctive canary: found nowhere else). */
const CANARY = '7319.4711';
const CANARY_UNITS = '7319471100';
const MEMO = 'canary-memo-5521';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';

function tsvRecord(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string]));
}

/** The ledger files of a config directory, concatenated. */
function journalText(configDir: string): string {
  const dir = join(configDir, 'ledger');
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
}

const lines = (text: string) => text.trimEnd().split('\n');

describe('a key svc has seen accepted is not sent again, after the service forgot it', () => {
  let t: TestSandbox;
  const svc = (args: string[], clock = virtualClock()) => runCli(args, { env: t.env, clock });
  const count = async () => (await t.svcJson<Transfer[]>(['transfer', 'ls', '--all'])).length;
  const forget = async () => {
    const r = await t.svc(['sandbox', 'clock', 'advance', '25h']); // past the service's 24 hours
    expect(r.code, r.stderr).toBe(0);
  };
  beforeAll(async () => {
    t = await startTestSandbox();
    expect((await t.svc(['sandbox', 'fund', '@alice', '20000'])).code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the cron story: sent under invoice-7; 25 hours on, the same command prints that transfer, sends nothing, exits 0', async () => {
    const cmd = ['transfer', 'send', '@acme', CANARY, '--memo', MEMO, '--idempotency-key', 'invoice-7'];
    const first = await svc(['--json', ...cmd]);
    expect(first.code, first.stderr).toBe(0);
    const sent = JSON.parse(first.stdout) as Transfer;
    const before = await count();
    await forget();

    const again = await svc(cmd); // piped: TSV on stdout
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^already sent under idempotency key invoice-7 on ${ISO}: ${sent.transfer_id}; not sent again\n$`));
    expect(tsvRecord(again.stdout)).toMatchObject({ transfer_id: sent.transfer_id, to: '@acme' });

    const json = await svc(['--json', ...cmd]);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as Transfer;
    // The shape of a send: the transfer (read back) and the key it was made under.
    expect(doc).toMatchObject({ transfer_id: sent.transfer_id, to: '@acme', idempotency_key: 'invoice-7' });
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(Object.keys(sent)));
    expect(lines(json.stderr)).toEqual([expect.stringMatching(/^already sent under idempotency key invoice-7 on .+; not sent again$/)]);
    for (const out of [again, json]) expect(out.stdout + out.stderr).not.toContain(CANARY);

    expect(await count()).toBe(before); // one transfer only
  });

  it('the ledger is 0600 in a 0700 folder and holds ids and keys, never the amount or the memo; a dry run records nothing', async () => {
    const dry = await svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'dry-only-1', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const dir = join(t.configDir, 'ledger');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
    const text = journalText(t.configDir);
    expect(text).toContain('"key":"invoice-7"');
    expect(text).toMatch(/"transfer_id":"tr_\w+"/);
    for (const secret of [CANARY, CANARY_UNITS, MEMO]) expect(text).not.toContain(secret);
    expect(text).not.toContain('dry-only-1');
  });

  it('--dry-run says what the real run would do with a known key: the earlier transfer (exit 0), another payment refused (exit 5); nothing sent, the journal unchanged', async () => {
    const first = await svc(['--json', 'transfer', 'send', '@acme', '2.5', '--idempotency-key', 'dry-known-1']);
    expect(first.code, first.stderr).toBe(0);
    const { transfer_id: id } = JSON.parse(first.stdout) as Transfer;
    await forget();
    const before = await count();
    const journal = journalText(t.configDir);

    const dry = await svc(['transfer', 'send', '@acme', '2.5', '--idempotency-key', 'dry-known-1', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^dry run: would not send: already sent under idempotency key dry-known-1 on ${ISO} \\(transfer ${id}\\); a real run shows it and sends nothing\n$`));
    expect(dry.stderr).toBe('nothing was sent\n');
    const json = await svc(['--json', 'transfer', 'send', '@acme', '2.5', '--idempotency-key', 'dry-known-1', '--dry-run']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ dry_run: true, decision: 'already_sent', idempotency_key: 'dry-known-1', transfer_id: id });

    // Another payment under the key: the real run's refusal, from the dry run too.
    const other = await svc(['transfer', 'send', '@acme', '3', '--idempotency-key', 'dry-known-1', '--dry-run']);
    expect(other.code).toBe(5);
    expect(other.stderr).toContain('(idempotency_key_reused)');
    // A key never used: the ordinary dry run.
    const fresh = await svc(['transfer', 'send', '@acme', '2.5', '--idempotency-key', 'dry-fresh-1', '--dry-run']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('would send');

    expect(await count()).toBe(before);
    expect(journalText(t.configDir)).toBe(journal);

    // Where nothing was ever sent, a dry run with a key makes no journal and no local key.
    const fresh2 = mkdtempSync(join(tmpdir(), 'svc-dry-'));
    try {
      const r = await runCli(['transfer', 'send', '@acme', '1', '--idempotency-key', 'k-1', '--dry-run'], { env: { SVC_CONFIG_DIR: fresh2, SVC_API_KEY: t.keyOf('@alice'), SVC_BASE_URL: t.url, NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(fresh2).filter((f) => f === 'sends')).toEqual([]);
    } finally {
      rmSync(fresh2, { recursive: true, force: true });
    }
  });

  it('another payment under a known key, after the service forgot it: refused (exit 5), nothing sent', async () => {
    const first = await svc(['--json', 'transfer', 'send', '@acme', '3', '--idempotency-key', 'invoice-8']);
    expect(first.code, first.stderr).toBe(0);
    const { transfer_id: id } = JSON.parse(first.stdout) as Transfer;
    await forget();
    const before = await count();
    const r = await svc(['transfer', 'send', '@acme', '4', '--idempotency-key', 'invoice-8']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^error: idempotency key invoice-8 was used on ${ISO} for another payment \\(transfer ${id}\\); nothing was sent \\(idempotency_key_reused\\)$`)),
      `hint: a new payment needs a new --idempotency-key; the earlier one: \`svc transfer get ${id}\``,
    ]);
    const j = await svc(['--json', 'transfer', 'send', '@bob', '3', '--idempotency-key', 'invoice-8']);
    expect(j.code).toBe(5);
    expect(JSON.parse(j.stderr).error).toMatchObject({ code: 'idempotency_key_reused', idempotency_key: 'invoice-8', transfer_id: id });
    expect(await count()).toBe(before);
  });

  it('a key refused for good (4xx) is not recorded: the corrected command sends; from then on it is known', async () => {
    const wrong = await svc(['transfer', 'send', '@nobody-here', '2', '--idempotency-key', 'invoice-9']);
    expect(wrong.code).toBe(4); // recipient_not_found: nothing exists under the key
    await forget(); // (the service answers the same key with another body 409 for its 24 hours)
    const before = await count();
    const fixed = await svc(['--json', 'transfer', 'send', '@acme', '2', '--idempotency-key', 'invoice-9']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(await count()).toBe(before + 1);
    await forget();
    const again = await svc(['transfer', 'send', '@acme', '2', '--idempotency-key', 'invoice-9']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^already sent under idempotency key invoice-9 /);
    expect(await count()).toBe(before + 1);
  });

  it('held for approval: the same command prints the held transaction and exits 8 while it waits; once it expired, exit 5 (transaction_expired); never a second hold', async () => {
    expect((await t.svc(['agent', 'create', 'payer', '--hitl-threshold', '5'])).code).toBe(0);
    const agentKey = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/payer'])).stdout.trim();
    expect((await t.svc(['sandbox', 'fund', '@alice/payer', '100'])).code).toBe(0);
    const asAgent = (args: string[]) => runCli(args, { env: { ...t.env, SVC_API_KEY: agentKey }, clock: virtualClock() });
    const cmd = ['--json', 'transfer', 'send', '@acme', '10', '--idempotency-key', 'held-1'];
    const first = await asAgent(cmd);
    expect(first.code, first.stderr).toBe(8);
    const held = JSON.parse(first.stdout) as Record<string, string>;
    expect(held).toMatchObject({ status: 'pending_approval', idempotency_key: 'held-1' });
    // Still waiting for the owner: the same answer, exit 8, nothing new held.
    const waiting = await asAgent(cmd);
    expect(waiting.code, waiting.stderr).toBe(8);
    const { transaction_id, status, expires_at, idempotency_key } = held;
    expect(JSON.parse(waiting.stdout)).toEqual({ transaction_id, status, expires_at, idempotency_key });
    expect(lines(waiting.stderr)).toEqual([expect.stringMatching(new RegExp(`^already sent under idempotency key held-1 on ${ISO}: held transaction ${held.transaction_id} \\(held for approval until ${held.expires_at}\\); not sent again$`))]);
    await forget(); // the hold expired long ago (15 minutes), and the service forgot the key
    const again = await asAgent(cmd);
    expect(again.code, again.stderr).toBe(5);
    expect(again.stdout).toBe('');
    expect(JSON.parse(again.stderr).error).toMatchObject({ code: 'transaction_expired', transaction_id: held.transaction_id, idempotency_key: 'held-1' });
    // What it became is in the ledger: the next run knows it without a second hold.
    expect(journalText(t.configDir)).toMatch(new RegExp(`"transaction_id":"${held.transaction_id}","held":"expired"`));
    expect((await asAgent(cmd)).code).toBe(5);
    // Nothing new waits for the owner.
    expect(await t.svcJson<unknown[]>(['pending', 'ls'])).toEqual([]);
  });

  it('a standard transfer accepted after the 422 question is known under the command\'s key: a rerun asks nothing, pays nothing', async () => {
    const before = await count();
    const cmd = ['transfer', 'send', '@oldwallet', '1', '--idempotency-key', 'old-wallet-1'];
    const yes = scriptedPrompter([true]);
    const first = await runCli(cmd, { env: t.env, tty: { stdin: true, stdout: true }, prompter: yes });
    expect(first.code, first.stderr).toBe(0);
    expect(yes.asked).toHaveLength(1);
    await forget();
    const none = scriptedPrompter([]);
    const again = await runCli(cmd, { env: t.env, tty: { stdin: true, stdout: true }, prompter: none });
    expect(again.code, again.stderr).toBe(0);
    expect(none.asked).toEqual([]);
    expect(again.stderr).toMatch(/already sent under idempotency key old-wallet-1 on \S+: tr_\w+; not sent again/);
    expect(await count()).toBe(before + 1);
  });

  it("kept 90 days by this machine's clock and the service's both: one clock read 91 days ahead drops nothing", async () => {
    const t0 = Date.parse('2026-01-05T00:00:00Z');
    const at = (days: number) => virtualClock(t0 + days * DAY);
    expect((await svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'prune-me'], at(0))).code).toBe(0);
    expect((await svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'probe-89'], at(89))).code).toBe(0);
    expect(journalText(t.configDir)).toContain('"key":"prune-me"');
    // This machine's clock 91 days on, the service's not: nothing is dropped, and the key is still known.
    expect((await svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'probe-91'], at(91))).code).toBe(0);
    expect(journalText(t.configDir)).toContain('"key":"prune-me"');
    await forget();
    const known = await svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'prune-me'], at(91));
    expect(known.code, known.stderr).toBe(0);
    expect(known.stderr).toMatch(/^already sent under idempotency key prune-me /);
    // Both clocks 91 days on (the service's moved too): dropped at the next run that learns its time.
    expect((await t.svc(['sandbox', 'clock', 'advance', '91d'])).code).toBe(0);
    expect((await svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'probe-182'], at(182))).code).toBe(0);
    const text = journalText(t.configDir);
    expect(text).not.toContain('prune-me');
    expect(text).toContain('"key":"probe-182"');
  });
});

describe.skipIf(!hasTool('bash') || !hasTool('jq'))("the README's cron example, as written (bash, jq, bin/svc.js)", () => {
  it('run, then run again after the service forgot its key: one payment, the same transfer printed', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const script = /```sh\n(#!\/usr\/bin\/env bash\n# Pays this month's rent at most once[\s\S]*?)```/.exec(readme)?.[1];
    expect(script, 'the cron example in README.md').toBeDefined();
    const t = await startTestSandbox();
    const work = tmpConfig();
    try {
      // `svc` is this build; `date` answers a fixed month, so the test is the same any day.
      writeFileSync(join(work, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      writeFileSync(join(work, 'date'), '#!/bin/sh\necho 2026-11\n');
      writeFileSync(join(work, 'pay.sh'), script!);
      for (const f of ['svc', 'date', 'pay.sh']) chmodSync(join(work, f), 0o755);
      const env = { PATH: `${work}:${process.env.PATH}`, HOME: work, SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' };
      // Asynchronously: the sandbox answers from this process.
      const run = () => new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        execFile('bash', [join(work, 'pay.sh')], { cwd: work, env, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
          resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        });
      });
      const count = async () => (await t.svcJson<Transfer[]>(['transfer', 'ls', '--all'])).length;
      const before = await count();
      const first = await run();
      expect(first.status, first.stderr).toBe(0);
      const id = /^paid: (tr_\w+) \(pending\)$/.exec(first.stdout.trim())?.[1];
      expect(id, first.stdout).toBeDefined();
      await t.sandbox.advance(25 * HOUR); // settles it, and the service forgets rent-2026-11
      const second = await run();
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout.trim()).toBe(`paid: ${id} (confirmed)`);
      expect(readFileSync(join(work, 'err.json'), 'utf8')).toMatch(/^already sent under idempotency key rent-2026-11 on \S+: tr_\w+; not sent again\n$/);
      expect(await count()).toBe(before + 1);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('an answer lost on the way: the same key is tried again within the service\'s memory, never after', () => {
  it('tried (connection reset on every try), tried again an hour later (accepted), then known for good', async () => {
    const transfer = { transfer_id: 'tr_lost1', status: 'pending', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2026-02-01T00:00:00Z' };
    let accept = false;
    const server = await startScriptedServer(answeringAccount((req) => {
      if (req.method === 'POST') return accept ? { status: 201, body: transfer } : 'reset';
      return { status: 200, body: transfer };
    }));
    try {
      const env = { SVC_CONFIG_DIR: tmpConfig(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
      const t0 = Date.parse('2026-02-01T00:00:00Z');
      const cmd = ['transfer', 'send', '@acme', '1', '--idempotency-key', 'lost-2'];
      const posts = () => server.requests.filter((q) => q.method === 'POST');
      const first = await runCli(cmd, { env, clock: virtualClock(t0) });
      expect(first.code).toBe(7); // the outcome is unknown
      accept = true;
      const second = await runCli(cmd, { env, clock: virtualClock(t0 + HOUR) });
      expect(second.code, second.stderr).toBe(0);
      expect(new Set(posts().map((q) => q.headers['idempotency-key']))).toEqual(new Set(['lost-2']));
      const sent = posts().length;
      const third = await runCli(cmd, { env, clock: virtualClock(t0 + 30 * HOUR) });
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).toMatch(/^already sent under idempotency key lost-2 on \S+: tr_lost1; not sent again\n$/);
      expect(posts()).toHaveLength(sent);
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// After the service accepted: what was accepted is named in every failure.

const PENDING = { transfer_id: 'tr_acc1', status: 'pending', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2026-02-01T00:00:00Z' };

/** A fake service: accepts the transfer (or holds it), then answers its GETs with `onGet`. */
async function acceptingServer(onGet: Handler, created: Record<string, unknown> = PENDING): Promise<ScriptedServer> {
  return startScriptedServer(answeringAccount((req, n) => (req.method === 'POST' ? { status: 'transaction_id' in created ? 202 : 201, body: created } : onGet(req, n))));
}

const configs: string[] = [];
afterAll(() => configs.forEach((d) => rmSync(d, { recursive: true, force: true })));
/** A private, empty config directory for a run against a fake service. */
function tmpConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-send-journal-'));
  configs.push(dir);
  return dir;
}

function envAt(server: ScriptedServer): Record<string, string> {
  return { SVC_CONFIG_DIR: tmpConfig(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' };
}

function jsonError(r: CliResult): Record<string, unknown> {
  expect(lines(r.stderr), r.stderr).toHaveLength(1);
  return (JSON.parse(r.stderr) as { error: Record<string, unknown> }).error;
}

describe('a failure after the service accepted the transfer names it (transfer_id, idempotency_key, the next command)', () => {
  it('the connection drops during --wait (a scripted service resets the GET): exit 7, human and --json', async () => {
    const server = await acceptingServer(() => 'reset');
    try {
      const r = await runCli(['transfer', 'send', '@acme', '1', '--wait', '--idempotency-key', 'drop-1'], { env: envAt(server) });
      expect(r.code).toBe(7);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)[0]).toBe('submitted transfer tr_acc1 (pending) under idempotency key drop-1');
      expect(lines(r.stderr).slice(-2)).toEqual([
        expect.stringMatching(/^error: .+; transfer tr_acc1 was accepted under idempotency key drop-1 \(network_error\)$/),
        'hint: it is not lost: follow it with `svc transfer get tr_acc1 --wait`',
      ]);
      const j = await runCli(['--json', 'transfer', 'send', '@acme', '1', '--wait'], { env: envAt(server) });
      expect(j.code).toBe(7);
      expect(j.stdout).toBe('');
      const key = server.requests.filter((q) => q.method === 'POST').at(-1)!.headers['idempotency-key'];
      expect(jsonError(j)).toMatchObject({
        code: 'network_error',
        transfer_id: 'tr_acc1',
        idempotency_key: key,
        message: expect.stringContaining(`transfer tr_acc1 was accepted under idempotency key ${key as string}`),
        hint: 'it is not lost: follow it with `svc transfer get tr_acc1 --wait`',
      });
    } finally {
      await server.close();
    }
  });

  it('the sandbox goes away during --wait (closed after it accepted the transfer): exit 7 naming it, human and --json', async () => {
    for (const json of [false, true]) {
      const t = await startTestSandbox();
      try {
        let stderr = '';
        let closed: Promise<void> | undefined;
        // --verbose traces each answer: once the POST's 201 is seen, the service disappears.
        const r = await runCli([...(json ? ['--json'] : []), '--verbose', 'transfer', 'send', '@acme', '1', '--wait', '--idempotency-key', `gone-${json}`], {
          env: t.env,
          onStderr: (s) => {
            stderr += s;
            if (!closed && /< 201 POST /.test(stderr)) closed = t.sandbox.close();
          },
        });
        await closed;
        expect(r.code, r.stderr).toBe(7);
        expect(r.stdout).toBe('');
        const id = /"transfer_id":"(tr_\w+)"|submitted transfer (tr_\w+)/.exec(r.stderr)?.slice(1).find(Boolean);
        const last = lines(r.stderr).at(-1)!;
        if (json) {
          const err = (JSON.parse(last) as { error: Record<string, unknown> }).error;
          expect(err).toMatchObject({ code: 'network_error', transfer_id: expect.stringMatching(/^tr_/), idempotency_key: 'gone-true', hint: expect.stringContaining('svc transfer get tr_') });
        } else {
          expect(id).toBeDefined();
          expect(lines(r.stderr).slice(-2)).toEqual([
            expect.stringMatching(new RegExp(`^error: .+; transfer ${id} was accepted under idempotency key gone-false \\(network_error\\)$`)),
            `hint: it is not lost: follow it with \`svc transfer get ${id} --wait\``,
          ]);
        }
      } finally {
        await t.close().catch(() => {});
      }
    }
  });

  it('Ctrl-C during --wait: exit 130, the transfer and its key named, human and --json', async () => {
    for (const json of [false, true]) {
      const ctrlC = new AbortController();
      const server = await acceptingServer(() => {
        ctrlC.abort('SIGINT'); // pressed while the first poll is on its way
        return { status: 200, body: PENDING };
      });
      try {
        const r = await runCli([...(json ? ['--json'] : []), 'transfer', 'send', '@acme', '1', '--wait', '--idempotency-key', `int-${json}`], { env: envAt(server), interrupt: ctrlC.signal });
        expect(r.code).toBe(130);
        expect(r.stdout).toBe('');
        const message = `stopped waiting: transfer tr_acc1 was submitted and keeps settling; idempotency key int-${json}`;
        const hint = 'follow it with `svc transfer get tr_acc1 --wait`';
        if (json) expect(jsonError(r)).toEqual({ code: 'interrupted', message, hint, transfer_id: 'tr_acc1', idempotency_key: `int-${json}` });
        else expect(lines(r.stderr).slice(-2)).toEqual([`error: ${message} (interrupted)`, `hint: ${hint}`]);
      } finally {
        await server.close();
      }
    }
  });

  it('--timeout-wait ends the wait: exit 7 with the key; held: the key is named too (exit 8, or --wait on a service without held reads: exit 1)', async () => {
    const server = await acceptingServer(() => ({ status: 200, body: PENDING }));
    try {
      const j = await runCli(['--json', 'transfer', 'send', '@acme', '1', '--wait', '--timeout-wait', '1s', '--idempotency-key', 'slow-1'], { env: envAt(server) });
      expect(j.code).toBe(7);
      expect(jsonError(j)).toMatchObject({ code: 'wait_timeout', transfer_id: 'tr_acc1', idempotency_key: 'slow-1', hint: 'it may still settle; follow it with `svc transfer get tr_acc1 --wait`' });
      const r = await runCli(['transfer', 'send', '@acme', '1', '--wait', '--timeout-wait', '1s', '--idempotency-key', 'slow-2'], { env: envAt(server) });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/^error: gave up waiting for transfer tr_acc1 after 1s: it is still pending; idempotency key slow-2 \(wait_timeout\)$/m);
    } finally {
      await server.close();
    }
    const held = await acceptingServer(() => ({ status: 404 }), { transaction_id: 'txn_9', status: 'pending_approval', expires_at: '2030-01-01T00:15:00Z' });
    try {
      // Without --wait: exit 8, the key named. With --wait against a service that cannot show held
      // transactions (every other route is 404 here): it says so, naming the transaction and the key.
      const r = await runCli(['transfer', 'send', '@acme', '900', '--idempotency-key', 'big-1'], { env: envAt(held) });
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/`svc pending approve txn_9` \(it was accepted under idempotency key big-1\)\n$/);
      const w = await runCli(['transfer', 'send', '@acme', '900', '--wait', '--idempotency-key', 'big-2'], { env: envAt(held) });
      expect(w.code).toBe(1);
      expect(w.stderr).toMatch(/cannot wait for a decision on txn_9; idempotency key big-2 \(unsupported_by_service\)\nhint: it stays held for approval until 2030-01-01T00:15:00Z: the account owner can approve it with `svc --profile <owner-profile> pending approve txn_9`/);
    } finally {
      await held.close();
    }
  });
});
