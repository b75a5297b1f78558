// Shared helpers for the benchmarks: a sandbox in its own process, timing, peak memory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSandboxProcess } from '../test/helpers/spawn-sandbox.mjs';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin/svc.js');
const RSS_REPORTER = join(ROOT, 'bench/rss-reporter.mjs');

// The host's NODE_EXTRA_CA_CERTS is kept out of everything the bench times. Node 20 reads and
// parses the file it names when any process starts (22 and 24 wait until TLS needs it): pointed at
// the system bundle, as on this machine, it adds ~50-90 ms to `node -e 0` and svc alike, which is
// not svc's and hid svc's own time in the Node 20 ratios (docs/performance-startup.md). npm gets
// it back (`withHostCa`): it may need it to reach the registry. startup.mjs reports what it costs.
export const HOST_EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS ?? process.env.BENCH_HOST_NODE_EXTRA_CA_CERTS;
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
  process.env.BENCH_HOST_NODE_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS; // for the scripts run-all.mjs starts
  delete process.env.NODE_EXTRA_CA_CERTS;
}
/** The environment for npm: this one with the host's NODE_EXTRA_CA_CERTS. */
export const withHostCa = () => ({ ...process.env, ...(HOST_EXTRA_CA === undefined ? {} : { NODE_EXTRA_CA_CERTS: HOST_EXTRA_CA }) });

/**
 * Starts `svc sandbox start --port 0` in a child process with a private config: in memory
 * (--ephemeral), or with `durable` a state file in that config dir. `bin` runs another build;
 * `nodeArgs` are flags for its node (--cpu-prof: NODE_OPTIONS may not carry it).
 */
export async function startSandbox(extraArgs = [], { durable = false, bin = BIN, nodeArgs = [] } = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env = { ...process.env, SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
  const sandbox = await spawnSandboxProcess(bin, ['sandbox', 'start', '--port', '0', ...(durable ? [] : ['--ephemeral']), ...extraArgs], env, {
    echoStderr: Boolean(process.env.BENCH_SANDBOX_VERBOSE),
    nodeArgs,
  });
  const url = sandbox.url;
  const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  const profile = config.profiles.sandbox;
  return {
    url,
    env,
    /** The sandbox process (its RSS is in /proc/<pid>/status) and its config dir (state in sandbox/state.db). */
    pid: sandbox.child.pid,
    configDir,
    apiKey: profile.apiKey,
    adminToken: profile.sandboxAdminToken,
    async stop() {
      await sandbox.stop();
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

/**
 * The Node executable of another major version, fetched as .ci/run does (`npm install --prefix
 * <dir>/<major> node@<major>`: the registry's `node` package) into $BENCH_NODES_DIR (default
 * <tmpdir>/svc-bench-nodes), kept there for the next run. Returns { path, version } or, when it
 * cannot be had (no network, no npm), { missing: why }.
 */
export function nodeOfMajor(major) {
  if (Number(process.versions.node.split('.')[0]) === major) return { path: process.execPath, version: process.version };
  const prefix = join(process.env.BENCH_NODES_DIR || join(tmpdir(), 'svc-bench-nodes'), String(major));
  const path = join(prefix, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(path)) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `node@${major}`], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: withHostCa() });
    if (r.status !== 0 || !existsSync(path)) return { missing: `\`npm install node@${major}\` failed: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').pop()}` };
  }
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return version ? { path, version } : { missing: `${path} does not run` };
}

/**
 * Funds @alice, then sends `count` POST /v1/transfers of 0.01 USDG to @acme over `connections`
 * keep-alive connections, each with an Idempotency-Key (`<keyPrefix>-<i>`: another prefix for
 * another batch on the same sandbox). Returns requests per second and failures.
 */
export async function postTransfers(sandbox, count, connections = 64, keyPrefix = 'bench') {
  const { Pool } = await import('undici');
  const pool = new Pool(sandbox.url, { connections, pipelining: 1 });
  try {
    const fund = await pool.request({
      method: 'POST',
      path: '/_sandbox/fund',
      headers: { 'content-type': 'application/json', 'x-sandbox-admin-token': sandbox.adminToken },
      body: JSON.stringify({ handle: '@alice', amount: String(count), asset: 'USDG' }),
    });
    if (fund.statusCode !== 200) throw new Error(`fund failed: ${fund.statusCode} ${await fund.body.text()}`);
    await fund.body.dump();
    let next = 0;
    let failures = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const res = await pool.request({
          method: 'POST',
          path: '/v1/transfers',
          headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `${keyPrefix}-${i}` },
          body: JSON.stringify({ to: '@acme', amount: '0.01' }),
        });
        if (res.statusCode !== 201) failures++;
        if (i % 10000 === 0 && i > 0) console.error(`  ${i} sent (${((performance.now() - started) / 1000).toFixed(1)} s)`);
        await res.body.dump();
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    const seconds = (performance.now() - started) / 1000;
    return { seconds, perSecond: count / seconds, failures };
  } finally {
    await pool.close();
  }
}

/**
 * One JSON request to a bench sandbox through an undici Pool: its API key, or its admin token
 * for a control route. Long timeouts: a sandbox under load may take minutes to answer.
 */
export async function sandboxApi(pool, sandbox, method, path, body, admin = false) {
  const res = await pool.request({
    method,
    path,
    headers: {
      'content-type': 'application/json',
      ...(admin ? { 'x-sandbox-admin-token': sandbox.adminToken } : { authorization: `Bearer ${sandbox.apiKey}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text);
}
