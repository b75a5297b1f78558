// Spawning the built CLI as a user or script would (no sandbox needed).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import { spawnSandboxProcess, type SandboxProcess } from './spawn-sandbox.mjs';
import { hasTool } from './tools.js';

export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * What a spawned svc keeps of this process's environment: PATH, HOME, and whatever moves the
 * machine's clock for this run (libfaketime's LD_PRELOAD and FAKETIME*), so that a child and the
 * test see the same time, as two programs on one machine do.
 */
export function machineEnv(): Record<string, string | undefined> {
  // No update check from a test's terminal (it would ask the public registry): tests of the notice unset it.
  // Secrets in the file: a test machine has no session bus, and `auto` would warn on every profile
  // saved (the keyring tests set their own; docs/configuration.md, "Where secrets live").
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_NO_UPDATE_NOTIFIER: '1', SVC_CREDENTIAL_STORE: 'file' };
  for (const [k, v] of Object.entries(process.env)) if (k === 'LD_PRELOAD' || k.startsWith('FAKETIME')) env[k] = v;
  return env;
}
export const BIN = join(ROOT, 'bin/svc.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string | undefined>;
  /** Run it under libfaketime with this offset (`-48h`, `+91d`): the machine's clock moved for svc alone. */
  faketime?: string;
}

/** Spawns bin/svc.js with a clean environment (no colour, no proxy, private config). */
export function runSvc(args: string[], baseEnv: Record<string, string | undefined>, opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...machineEnv(), ...baseEnv, ...opts.env })) {
      // Under its own faketime, not nested in the suite's (`faketime -f +45d npm test`): the
      // wrapper refuses to run inside a libfaketime environment.
      if (opts.faketime !== undefined && (k === 'LD_PRELOAD' || k.startsWith('FAKETIME'))) continue;
      if (v !== undefined) env[k] = v;
    }
    const child = opts.faketime === undefined
      ? spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn('faketime', ['-f', opts.faketime, process.execPath, BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

export type SpawnedSandbox = SandboxProcess;

/**
 * Spawns bin/svc.js with `argv` (a `sandbox start ...` command line) and resolves once it prints
 * "svc sandbox listening on <url>"; rejects if it exits first.
 */
export function spawnSandbox(argv: string[], baseEnv: Record<string, string | undefined>): Promise<SpawnedSandbox> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...machineEnv(), ...baseEnv })) if (v !== undefined) env[k] = v;
  return spawnSandboxProcess(BIN, argv, env);
}

export interface LiveRun {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr (or stdout) matches, rejects when the process ends first. */
  waitFor(stream: 'stdout' | 'stderr', re: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Whether the process has already exited. */
  done(): boolean;
}

/** Spawns bin/svc.js and lets the test watch its output while it runs; stdin gets `opts.input`, then ends. */
export function spawnSvc(args: string[], env: Record<string, string | undefined>, opts: { input?: string } = {}): LiveRun {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...machineEnv(), ...env })) if (v !== undefined) fullEnv[k] = v;
  const child = spawn(process.execPath, [BIN, ...args], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let finished = false;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), notify()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((err += d), notify()));
  child.stdin.end(opts.input ?? '');
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      finished = true;
      notify();
      resolve({ code, stdout: out, stderr: err });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    done: () => finished,
    waitFor(stream, re, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          const text = stream === 'stdout' ? out : err;
          if (re.test(text)) return finish(resolve);
          if (finished) finish(() => reject(new Error(`process exited before ${stream} matched ${re}\nstdout: ${out}\nstderr: ${err}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${stream} to match ${re}\nstderr: ${err}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Whether util-linux `script` is available to run the CLI under a pseudo-terminal. */
export const HAS_SCRIPT = hasTool('script');

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TtyRun {
  /** Everything the terminal showed (stdout and stderr together), with \r\n turned into \n. */
  output(): string;
  /** Types into the terminal. */
  write(text: string): void;
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; output: string }>;
}

/**
 * Runs bin/svc.js under a pseudo-terminal (stdin, stdout and stderr are all TTYs) through
 * `script`, so table output, spinners and prompts can be tested end to end.
 */
export function spawnInTty(args: string[], env: Record<string, string | undefined>): TtyRun {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...machineEnv(), TERM: 'xterm', ...env })) if (v !== undefined) fullEnv[k] = v;
  const cmd = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let finished = false;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), notify()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((out += d), notify()));
  const norm = () => out.replace(/\r\n/g, '\n');
  const exited = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      finished = true;
      notify();
      resolve({ code, output: norm() });
    });
  });
  return {
    output: norm,
    write: (text) => void child.stdin.write(text),
    exited,
    waitFor(re, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        const check = () => {
          if (re.test(norm())) return finish(resolve);
          if (finished) finish(() => reject(new Error(`terminal closed before matching ${re}:\n${norm()}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${re}:\n${norm()}`))), timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs bin/svc.js under a pseudo-terminal and waits for it to end. */
export async function runInTty(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const run = spawnInTty(args, env);
  return run.exited;
}

/** Removes ANSI escape sequences (colours, cursor movement). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}
