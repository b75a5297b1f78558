// The update notice: after a command, at most once a day, one stderr note that a newer release is
// out, with the upgrade command for how svc was installed. It never waits for the network: it
// shows what an earlier background check stored (cache.ts) and, once a day, starts the next check
// in a detached process (check.ts) whose answer a later run shows. Never in CI, without a
// terminal on stderr, with --json, or with SVC_NO_UPDATE_NOTIFIER / NO_UPDATE_NOTIFIER.
import type { Clock } from '../../clock.js';
import { isAnnounceableVersion, isNewer } from '../../domain/semver.js';
import { sanitize } from '../../io/sanitize.js';
import type { IOStreams } from '../../io/streams.js';
import { PACKAGE_NAME, VERSION } from '../../version.js';
import { readCache, writeCache } from './cache.js';
import { installKind, upgradeCommand } from './upgrade-command.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface NoticeContext {
  env: NodeJS.ProcessEnv;
  io: IOStreams;
  clock: Clock;
  json: boolean;
  /** Where the running code is (its install kind picks the upgrade command). */
  modulePath: string;
  /** Starts the registry check without waiting for it (run(): a detached process). */
  launchCheck?: () => void;
}

const set = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

export function noticeWanted(ctx: Pick<NoticeContext, 'env' | 'io' | 'json'>): boolean {
  const { env } = ctx;
  return !set(env.CI) && !set(env.SVC_NO_UPDATE_NOTIFIER) && !set(env.NO_UPDATE_NOTIFIER) && ctx.io.stderrIsTTY && !ctx.json;
}

/** A day or more since `at`, or `at` in the future (the clock went back): due again. */
const due = (at: number | undefined, now: number) => at === undefined || now - at >= DAY_MS || now < at;

/** Called once a command has finished; never throws, never waits on the network. */
export function afterCommand(ctx: NoticeContext): void {
  try {
    if (!noticeWanted(ctx)) return;
    const now = ctx.clock.now();
    const cache = readCache(ctx.env);
    const next = { ...cache };
    if (cache.latest !== undefined && isAnnounceableVersion(cache.latest) && isNewer(cache.latest, VERSION) && due(cache.notified_at, now)) {
      const command = upgradeCommand(installKind(ctx.modulePath, PACKAGE_NAME), PACKAGE_NAME);
      ctx.io.err(`\nA new release of svc is available: ${VERSION} → ${sanitize(cache.latest)}\nTo upgrade: ${command}\n`);
      next.notified_at = now;
    }
    const check = ctx.launchCheck !== undefined && due(cache.checked_at, now);
    if (check) next.checked_at = now;
    if (next.notified_at !== cache.notified_at || next.checked_at !== cache.checked_at) writeCache(ctx.env, next);
    if (check) ctx.launchCheck!();
  } catch {
    // an unreadable config dir or cache: no notice
  }
}
