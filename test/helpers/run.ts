// Spawning the built CLI as a user or script would (no sandbox needed).
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/svc.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string | undefined>;
}

/** Spawns bin/svc.js with a clean environment (no colour, no proxy, private config). */
export function runSvc(args: string[], baseEnv: Record<string, string | undefined>, opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...baseEnv, ...opts.env })) {
      if (v !== undefined) env[k] = v;
    }
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

export interface SpawnedSandbox {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far. */
  stdout: () => string;
  stderr: () => string;
  /** Sends a signal (unless it already exited) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns bin/svc.js with `argv` (a `sandbox start ...` command line) and resolves once it prints
 * "svc sandbox listening on <url>"; rejects if it exits first.
 */
export async function spawnSandbox(argv: string[], baseEnv: Record<string, string | undefined>): Promise<SpawnedSandbox> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...baseEnv })) if (v !== undefined) env[k] = v;
  const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /^svc sandbox listening on (http:\/\/\S+)$/m.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
