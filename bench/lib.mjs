// Shared helpers for the benchmarks: a sandbox in its own process, timing, peak memory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin/svc.js');
const RSS_REPORTER = join(ROOT, 'bench/rss-reporter.mjs');

/** Starts `svc sandbox start --port 0 --ephemeral` in a child process with a private config. */
export async function startSandbox(extraArgs = []) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env = { ...process.env, SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--ephemeral', ...extraArgs], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolvePromise, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolvePromise(m[1]);
    });
    child.stdout.resume();
    child.on("exit", (code) => reject(new Error(`sandbox exited ${code}: ${stderr}`)));
    if (process.env.BENCH_SANDBOX_VERBOSE) child.stderr.on("data", (d) => process.stderr.write(d));
  });
  const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  const profile = config.profiles.sandbox;
  return {
    url,
    env,
    apiKey: profile.apiKey,
    adminToken: profile.sandboxAdminToken,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** Runs a command once; returns wall time in ms and peak RSS in MB (of the svc process). */
export function timeRun(args, env, { stdout = 'ignore' } = {}) {
  const rssFile = join(mkdtempSync(join(tmpdir(), 'svc-rss-')), 'rss');
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', RSS_REPORTER, ...args], {
    env: { ...env, BENCH_RSS_FILE: rssFile },
    stdio: ['ignore', stdout, 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  let rssMb;
  try {
    rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  } catch {
    rssMb = NaN;
  }
  return { ms, rssMb, stdout: r.stdout };
}

/** Median wall time of n runs of `node <args>` (no RSS hook, to time start-up honestly). */
export function medianMs(args, env, n = 20) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}

export const fmt = (n, digits = 1) => n.toFixed(digits);
