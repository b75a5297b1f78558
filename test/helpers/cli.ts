// Runs the CLI in this process, as gh's tests do with IOStreams: main(argv, deps) with buffers
// for stdout and stderr, a private environment, and optionally a clock and a Ctrl-C. What a
// script would see: the exit code and the bytes on each stream.
import { Readable, Writable } from 'node:stream';
import type { Clock } from '../../src/clock.js';
import type { Prompter } from '../../src/io/prompter.js';
import type { Interrupt } from '../../src/runtime/interrupt.js';
import { main } from '../../src/main.js';
import { loopbackCertificate } from './tls.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Environment of the run (nothing is inherited from the test process). */
  env?: Record<string, string | undefined>;
  /** Bytes on stdin (default: empty, not a terminal). */
  input?: string | Buffer;
  /** Pretend these streams are terminals. */
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** Terminal width for tables (default 80, as for an unknown terminal). */
  columns?: number;
  /** Default: a virtualClock() (every wait passes at once; no test waits in real time). */
  clock?: Clock;
  /** Aborting it is Ctrl-C for commands that wait for one. */
  interrupt?: AbortSignal;
  /** Called with each chunk written to stderr as it is written (to wait for a line). */
  onStderr?: (text: string) => void;
  onStdout?: (text: string) => void;
  /** Who answers questions (with tty stdin and stdout); default: the terminal prompter on the buffers. */
  prompter?: Prompter;
  /**
   * The certificate authorities main() trusts instead of Node's (MainContext.trustedCa). Default:
   * the test certificate of https scripted servers (tls.ts); null: Node's own, as in production.
   */
  trustedCa?: string | null;
  /** MainContext.launchUpdateCheck (default: none, no check is started). */
  launchUpdateCheck?: () => void;
  /** MainContext.modulePath: where svc pretends to be installed. */
  modulePath?: string;
}

class Collector extends Writable {
  text = '';
  constructor(private readonly tap?: (text: string) => void) {
    super({ decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _enc: BufferEncoding, done: () => void): void {
    const s = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.text += s;
    this.tap?.(s);
    done();
  }
}

/**
 * The environment main() sees: only what the test gives, plus SVC_CREDENTIAL_STORE=file unless the
 * test names it (even as undefined: the default, auto). A test run has no session bus, so `auto`
 * would add its one-time fallback warning to the stderr of every test that saves a profile; the
 * keyring tests (test/config/credentials/) give their own.
 */
function cleanEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = 'SVC_CREDENTIAL_STORE' in env ? {} : { SVC_CREDENTIAL_STORE: 'file' };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** main(argv) in-process; resolves when the command returns. */
export async function runCli(argv: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  const stdout = new Collector(opts.onStdout);
  const stderr = new Collector(opts.onStderr);
  const stdin = opts.input === undefined ? Readable.from([]) : Readable.from([Buffer.from(opts.input)]);
  const interrupt: Interrupt | undefined = opts.interrupt ? { signal: opts.interrupt, handle: () => {} } : undefined;
  const trustedCa = opts.trustedCa === undefined ? loopbackCertificate().cert : opts.trustedCa;
  const code = await main(argv, {
    stdin,
    stdout,
    stderr,
    env: cleanEnv(opts.env ?? {}),
    tty: { stdin: false, stdout: false, stderr: false, ...opts.tty },
    columns: opts.columns ?? 80,
    clock: opts.clock ?? virtualClock(),
    ...(interrupt ? { interrupt } : {}),
    ...(opts.prompter ? { prompter: opts.prompter } : {}),
    ...(trustedCa ? { trustedCa } : {}),
    ...(opts.launchUpdateCheck ? { launchUpdateCheck: opts.launchUpdateCheck } : {}),
    ...(opts.modulePath ? { modulePath: opts.modulePath } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}


/**
 * A clock for a command under test: its waits (retry backoff, Retry-After, --wait polls) pass at
 * once, move its `now`, and are recorded, so a test can check how long it would have waited
 * without waiting.
 */
export function virtualClock(start = Date.now()): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

/** runSvc's signature, in-process: the same environment rules, no child process. */
export function svcIn(args: readonly string[], env: Record<string, string | undefined>, opts: { input?: string; env?: Record<string, string | undefined>; clock?: Clock } = {}): Promise<CliResult> {
  return runCli(args, { env: { ...env, ...opts.env }, ...(opts.input !== undefined ? { input: opts.input } : {}), ...(opts.clock ? { clock: opts.clock } : {}) });
}

/**
 * A clock whose waits end only when the test says so: every sleep() is held until release(), and
 * asleep() resolves once the command is held in one. A test lets a waiting command (`pending
 * wait`, `send --wait`) read once, acts (another runCli approves, the sandbox clock moves), then
 * lets it read again: it waits on events, never on time. `now` moves by each released sleep.
 */
export function gatedClock(start = Date.now()): Clock & { asleep(): Promise<void>; release(): void; slept: number[] } {
  let now = start;
  let held: Array<() => void> = [];
  let watchers: Array<() => void> = [];
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        held.push(() => {
          slept.push(ms);
          now += ms;
          resolve();
        });
        const w = watchers;
        watchers = [];
        w.forEach((f) => f());
      }),
    asleep: () => (held.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => watchers.push(resolve))),
    release: () => {
      const h = held;
      held = [];
      h.forEach((f) => f());
    },
  };
}
