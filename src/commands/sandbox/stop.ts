// `svc sandbox stop`: stops the sandbox this config dir records as running (running.ts): checks
// that the sandbox answering at its URL is that very start (its nonce and pid, which only it
// knows, match the record: a stale record whose pid now belongs to another program, with another
// sandbox at the URL, never gets that program signalled), sends
// SIGTERM (the sandbox stops as on Ctrl-C: saves, hands its profile back if ephemeral), waits
// for the process to end, then says so.
import { dispatcherFor } from '../../api/dispatcher.js';
import { httpRequest } from '../../api/undici.js';
import type { Needs } from '../../runtime/factory.js';
import { CliError, UsageError } from '../../errors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { CHAIN_ID } from '../../sandbox/auth.js';
import { listRunning, type RunningSandbox } from '../../config/sandbox-running.js';
import { processAlive } from '../../config/pid.js';

const POLL_MS = 50;
const STOP_WAIT_POLLS = 200; // 10 s

export interface StopOptions {
  pid?: string;
}

function pick(running: RunningSandbox[], pidText: string | undefined): RunningSandbox {
  if (pidText !== undefined && !/^\d{1,10}$/.test(pidText)) throw new UsageError(`--pid must be a process id (a whole number), got "${sanitize(pidText)}"`);
  const candidates = pidText === undefined ? running : running.filter((r) => r.pid === Number(pidText));
  if (candidates.length === 0) {
    throw new CliError('not_found', 'sandbox_not_running', pidText === undefined ? 'no sandbox is running for this config directory' : `no sandbox of this config directory runs as process ${pidText}`,
      { hint: 'start one with `svc sandbox start`' });
  }
  if (candidates.length > 1) {
    throw new UsageError(`${candidates.length} sandboxes are running (processes ${candidates.map((r) => r.pid).join(', ')}): name one with --pid`, undefined, 'invalid_option');
  }
  return candidates[0]!;
}

/** Whether the sandbox at the record's URL is the recorded start: its nonce and its pid. */
async function answersAsRecorded(target: RunningSandbox): Promise<boolean> {
  // A record of an older svc has no nonce: nothing can tell its process from another's.
  if (target.instance === undefined) return false;
  try {
    // Through svc's own client, direct (the sandbox is on this machine): Node's fetch() would load
    // its own copy of undici, web streams, HTTP/2 and zlib first (~70 ms on Node 20).
    const url = new URL('/_sandbox/health', target.url);
    const res = await httpRequest(dispatcherFor(url, {}), url, { method: 'GET', signal: AbortSignal.timeout(2000) });
    const body = (await res.body.json()) as { ok?: unknown; chain_id?: unknown; instance?: unknown; pid?: unknown };
    return res.statusCode === 200 && body.ok === true && body.chain_id === CHAIN_ID && body.instance === target.instance && body.pid === target.pid;
  } catch {
    return false;
  }
}


export async function stopSandbox(ctx: Needs<'clock' | 'env' | 'io' | 'json'>, opts: StopOptions): Promise<void> {
  const target = pick(listRunning(ctx.env), opts.pid);
  if (!(await answersAsRecorded(target))) {
    throw new CliError('failure', 'sandbox_not_answering', `process ${target.pid} is recorded as the sandbox at ${sanitize(target.url)}, but that sandbox does not answer there (nothing, or another one, does); nothing was signalled`,
      { hint: `if it is that sandbox and it is hung, stop it yourself: kill ${target.pid}` });
  }
  process.kill(target.pid, 'SIGTERM');
  for (let i = 0; i < STOP_WAIT_POLLS && processAlive(target.pid); i++) await ctx.clock.sleep(POLL_MS);
  if (processAlive(target.pid)) {
    throw new CliError('failure', 'sandbox_not_answering', `the sandbox (process ${target.pid}) has not stopped 10s after SIGTERM`, { hint: `kill -9 ${target.pid}` });
  }
  if (ctx.json) printJson(ctx.io, { stopped: true, pid: target.pid, url: target.url, profile: target.profile, ephemeral: target.ephemeral });
  else ctx.io.err(`stopped the sandbox at ${sanitize(target.url)} (process ${target.pid})\n`);
}
