// Sandbox throughput: POST /v1/transfers over 64 keep-alive connections, each with an
// Idempotency-Key, against a sandbox in its own process, durable (a state file: every answer
// committed first). The reference, measured in the same run: a bare node:http + libsql server
// doing one durable INSERT per request (bench/bare-post-server.mjs: same durability, WAL +
// synchronous NORMAL, same client). The requests are sent in rounds, each side in turn, the side
// that goes first rotating every round, so a busy machine slows each alike; each round gives a
// ratio, and the row shows the medians.
// BENCH_TRANSFERS (default 100,000) requests to each side in BENCH_ROUNDS (default 5) rounds;
// BENCH_EPHEMERAL=1 for the sandbox's in-memory database; BENCH_BIN=/path/to/other/bin/svc.js
// measures another build instead of this one; BENCH_BEFORE_BIN=/path/to/other/bin/svc.js measures
// it as a third side, in the same rounds (before/after), and BENCH_OTHER_BINS=name=path,... more
// (experiments: a build without some step shows that step's cost); BENCH_CPU_PROF=<dir> writes the
// sandbox process's CPU profile there (node --cpu-prof) when it stops.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, postTransfers, startSandbox } from './lib.mjs';
import { report } from './measure.mjs';

const COUNT = Number(process.env.BENCH_TRANSFERS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 64;
const durable = !process.env.BENCH_EPHEMERAL;
const perRound = Math.ceil(COUNT / ROUNDS);

/**
 * CPU seconds each thread of a process has used so far (user + system), by thread id: the main
 * thread's id is the pid; in a sandbox the busiest other one is the key-pool worker
 * (crypto/key-pool.ts), the rest are V8's and libuv's helpers. Linux only (empty elsewhere).
 */
function threadSeconds(pid) {
  const out = new Map();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(tid, (Number(f[11]) + Number(f[12])) / 100); // utime + stime, in USER_HZ (100 a second)
    }
  } catch {}
  return out;
}

/** What each thread used between two readings: the main thread, the busiest other one, the rest. */
function cpuBetween(pid, before, after) {
  const used = [...after].map(([tid, s]) => [tid, s - (before.get(tid) ?? 0)]);
  const main = used.find(([tid]) => tid === String(pid))?.[1] ?? NaN;
  const others = used.filter(([tid]) => tid !== String(pid)).map(([, s]) => s).sort((a, b) => b - a);
  return { main, worker: others[0] ?? 0, rest: others.slice(1).reduce((a, b) => a + b, 0) };
}

/** A process's peak RSS so far, in MB (VmHWM). */
function peakRssMb(pid) {
  try {
    return fmt(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024, 0);
  } catch {
    return 'n/a';
  }
}

/** The bare reference server in its own process, its database in a temporary directory. */
async function startBare() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bare-'));
  const child = spawn(process.execPath, [join(import.meta.dirname, 'bare-post-server.mjs'), dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /bare listening on (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`bare server exited ${code}: ${err}`)));
  });
  return {
    url,
    pid: child.pid,
    apiKey: 'none',
    adminToken: 'none',
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const profDir = process.env.BENCH_CPU_PROF;
const sandboxArgs = ['--block-time', '1ms', '--quiet'];
const kind = durable ? 'durable state file' : 'in memory';
/** The sides measured, each in its own process: this build's sandbox, the bare server, and other builds' sandboxes. */
const sides = [];
// Other builds, each a side of its own: BENCH_BEFORE_BIN=path (named "before"), and BENCH_OTHER_BINS=name=path,...
const others = [
  ...(process.env.BENCH_BEFORE_BIN ? [['before', process.env.BENCH_BEFORE_BIN]] : []),
  ...(process.env.BENCH_OTHER_BINS ? process.env.BENCH_OTHER_BINS.split(',').map((x) => x.split('=')) : []),
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  sides.push({ name: 'sandbox', target: await startSandbox(sandboxArgs, { durable, bin: process.env.BENCH_BIN, nodeArgs: profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] }) });
  sides.push({ name: 'bare', target: await startBare() });
  for (const [name, bin] of others) sides.push({ name, target: await startSandbox(sandboxArgs, { durable, bin }) });
  for (const side of sides) Object.assign(side, { rates: [], cpu: { main: 0, worker: 0, rest: 0, client: 0 } });
  const ratios = [];
  let failures = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // Each side goes first in turn: what the machine does meanwhile falls on each alike.
    const order = sides.map((_, i) => sides[(i + r) % sides.length]);
    const round = {};
    for (const side of order) {
      const before = threadSeconds(side.target.pid);
      const client = process.cpuUsage();
      const res = await postTransfers(side.target, perRound, CONNECTIONS, `bench-r${r}`);
      const used = process.cpuUsage(client);
      const server = cpuBetween(side.target.pid, before, threadSeconds(side.target.pid));
      side.cpu.client += (used.user + used.system) / 1e6;
      for (const k of ['main', 'worker', 'rest']) side.cpu[k] += server[k];
      failures += res.failures;
      round[side.name] = res.perSecond;
      side.rates.push(res.perSecond);
    }
    ratios.push(round.sandbox / round.bare);
    console.log(`  round ${r + 1}/${ROUNDS}: ${sides.map((x) => `${x.name} ${fmt(round[x.name], 0)} req/s`).join(', ')}; ${sides.filter((x) => x.name !== 'bare').map((x) => `${x.name}/bare ${fmt(round[x.name] / round.bare, 2)}x`).join(', ')}`);
  }
  // CPU per request is steadier than requests per second on a shared machine: it shows what each
  // side costs, whatever else runs (a sandbox settles each transfer 1 ms later: in its round too).
  const us = (x) => fmt((x * 1e6) / (perRound * ROUNDS), 0);
  for (const x of sides) {
    const { main, worker, rest, client } = x.cpu;
    console.log(`${x.name}: median ${fmt(median(x.rates), 0)} req/s; CPU per request ${us(main + worker + rest)} us: main thread ${us(main)}, busiest other thread ${us(worker)}, other threads ${us(rest)}; the client ${us(client)} us; peak RSS ${peakRssMb(x.target.pid)} MB`);
  }
  const [s, b] = sides.map((x) => median(x.rates));
  const ratio = median(ratios);
  console.log(`sandbox (${kind}${process.env.BENCH_BIN ? `, ${process.env.BENCH_BIN}` : ''}): ${perRound * ROUNDS} POST /v1/transfers in ${ROUNDS} rounds, ${fmt(s, 0)} req/s = ${fmt(ratio, 2)}x the bare server's ${fmt(b, 0)} req/s (${failures} failed)`);
  report('sandbox throughput', [
    {
      label: `sandbox, ${(perRound * ROUNDS).toLocaleString('en')} POST /v1/transfers over ${CONNECTIONS} connections (${kind})`,
      value: `${fmt(s, 0)} req/s = ${fmt(ratio, 2)}x a bare node:http + libsql server doing one durable INSERT per request (${fmt(b, 0)} req/s, same run), ${failures} failed`,
      aim: '>= 0.7x the bare server',
      figure: `${fmt(s, 0)} req/s, ${fmt(ratio, 2)}x`,
      reference: `bare node:http + libsql server ${fmt(b, 0)} req/s`,
      met: ratio >= 0.7,
    },
  ]);
  if (failures) process.exitCode = 1;
} finally {
  await Promise.all(sides.map((x) => x.target.stop()));
}
