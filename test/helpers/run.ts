// Spawning the built CLI as a user or script would (no sandbox needed).
import { spawn } from 'node:child_process';
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
