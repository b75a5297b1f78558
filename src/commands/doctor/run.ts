// `svc doctor`: every check in order, each line printed as soon as it is known; a check that
// needs one that failed is skipped with the reason. Exit 0 unless a check failed (then 1);
// warnings alone pass. Read-only: nothing is written, the key goes only where a command would
// send it (the profile's base URL), and a keyless probe is the only other request.
import type { Needs } from '../../runtime/factory.js';
import type { Account } from '../../api/schemas.js';
import { SilentExit } from '../../errors.js';
import { redact } from '../../config/mask.js';
import { palette, type Palette } from '../../io/colors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { wrap } from '../../io/wrap.js';
import { LABELS, passed, skip, type CheckResult, type CheckStatus } from './check.js';
import { checkConfigDir, checkConfigFile, checkNode } from './local.js';
import { checkBase, checkProfile, checkProxy } from './profile.js';
import { checkSecrets } from './secrets.js';
import { checkClock, checkReachable, checkTls, probe } from './network.js';
import { checkApiKey, checkDecryptionKey } from './account.js';

export interface DoctorDeps {
  /** The Node.js version to judge (tests); default process.version. */
  nodeVersion?: string;
}

const LABEL_WIDTH = Math.max(...Object.values(LABELS).map((l) => l.length));

export async function runDoctor(ctx: Needs<'settings' | 'client' | 'clock' | 'credentials' | 'decryptionKey' | 'env' | 'globals' | 'io' | 'json' | 'network' | 'trustedCa'>, deps: DoctorDeps = {}): Promise<void> {
  ctx.network.timeoutMs(); // a bad --timeout is a usage error before any check runs
  const results: CheckResult[] = [];
  const secrets: (string | undefined)[] = [];
  // Human lines go to stdout as each check ends; colour only when stdout is a terminal.
  const p = ctx.json ? undefined : await palette({ ...ctx.io, color: ctx.io.color && ctx.io.stdoutIsTTY });
  const mark: Record<CheckStatus, string> | undefined = p && { ok: p.green('✓'), warn: p.yellow('!'), fail: p.red('✗'), skip: p.dim('-') };
  const clean = (text: string) => sanitize(redact(text, secrets));
  // On a terminal, long lines wrap at word boundaries under their column (never inside a
  // `command`); piped, each check stays one line (and a fix one more).
  const width = ctx.io.stdoutIsTTY ? ctx.io.columns : Infinity;
  const indent = LABEL_WIDTH + 4;
  const add = (r: CheckResult) => {
    results.push(r);
    if (!p || !mark) return;
    const detail = wrap(clean(r.detail), width - indent).join(`\n${' '.repeat(indent)}`);
    ctx.io.out(`${mark[r.status]} ${(LABELS[r.name] ?? r.name).padEnd(LABEL_WIDTH)}  ${r.status === 'skip' ? p.dim(detail) : detail}\n`);
    if (r.fix && (r.status === 'fail' || r.status === 'warn')) {
      const fix = wrap(clean(r.fix), width - indent - 5).join(`\n${' '.repeat(indent + 5)}`);
      ctx.io.out(`${' '.repeat(indent)}${p.dim(`fix: ${fix}`)}\n`);
    }
  };

  add(checkNode(deps.nodeVersion ?? process.version));
  const dir = checkConfigDir(ctx.env);
  add(dir);
  const file = checkConfigFile(ctx.env, dir);
  add(file);
  add(await checkSecrets(ctx, file));

  const profile = await checkProfile(ctx);
  add(profile.result);
  const auth = profile.auth;
  if (auth) secrets.push(auth.apiKey, auth.decryptionKey, auth.sandboxAdminToken);

  const base = auth ? checkBase(auth) : undefined;
  add(base?.result ?? skip('base_url', 'no API key to use it with (see profile)'));
  const url = base?.url;

  const proxy = checkProxy(ctx.env, url);
  add(proxy.result);

  let account: Account | undefined;
  if (!url) {
    for (const name of ['reachable', 'tls', 'clock', 'api_key']) add(skip(name, auth ? 'the base URL is not usable (see base URL)' : 'no API key (see profile)'));
  } else if (!passed(proxy.result)) {
    for (const name of ['reachable', 'tls', 'clock', 'api_key']) add(skip(name, 'the proxy setting is not usable (see proxy)'));
  } else {
    const answer = await probe(ctx, url);
    const reachable = checkReachable(url, answer, proxy.proxy);
    add(reachable);
    const tls = checkTls(ctx, url, answer);
    add(tls);
    add(checkClock(url, answer));
    if (!passed(reachable)) {
      add(skip('api_key', 'the service was not reached'));
    } else if (!passed(tls)) {
      add(skip('api_key', 'TLS failed (see TLS): the key is not sent'));
    } else {
      const key = await checkApiKey(ctx, auth!, url);
      add(key.result);
      account = key.account;
    }
  }
  add(await checkDecryptionKey(ctx, auth, account));

  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  const summary = { ok: count('ok'), warn: count('warn'), fail: count('fail'), skip: count('skip') };
  const allPassed = summary.fail === 0;

  if (ctx.json) {
    printJson(ctx.io, JSON.parse(redact(JSON.stringify({
      ok: allPassed,
      checks: results.map((r) => ({ name: r.name, status: r.status, ok: passed(r), detail: r.detail, ...(r.fix ? { fix: r.fix } : {}), ...(r.data ? { data: r.data } : {}) })),
      summary,
    }), secrets)));
  } else {
    printSummary(ctx, summary, p!);
  }
  // The report is the result (stdout, as when everything passes); a failed check exits 1 silently.
  if (!allPassed) throw new SilentExit('failure', 'check_failed');
}

function printSummary(ctx: Needs<'io'>, summary: Record<CheckStatus, number>, p: Palette): void {
  const warnings = summary.warn ? `, ${summary.warn} warning${summary.warn === 1 ? '' : 's'}` : '';
  if (summary.fail === 0) {
    ctx.io.out(`\n${p.green('All checks passed')}${warnings}.\n`);
  } else {
    const skipped = summary.skip ? `, ${summary.skip} skipped` : '';
    ctx.io.out(`\n${p.red(`${summary.fail} failed`)}${warnings}${skipped}: fix the first ✗, then run \`svc doctor\` again.\n`);
  }
}
