// Sandbox throughput: POST /v1/transfers over 64 keep-alive connections, each with an
// Idempotency-Key, against a sandbox in its own process, durable (a state file: every answer
// committed first). The reference, measured in the same run: a bare node:http + libsql server
// doing one durable INSERT per request (bench/bare-post-server.mjs: same durability, WAL +
// synchronous NORMAL, same client). The requests are sent in rounds, sandbox then bare then
// sandbox..., the order swapped every round, so a busy machine slows both alike; each round
// gives a ratio, and the row shows the medians.
// BENCH_TRANSFERS (default 100,000) requests to each side in BENCH_ROUNDS (default 5) rounds;
// BENCH_EPHEMERAL=1 for the sandbox's in-memory database; BENCH_BIN=/path/to/other/bin/svc.js
// measures another build instead of this one; BENCH_BEFORE_BIN=/path/to/other/bin/svc.js measures
// it as a third side, in the same rounds (before/after); BENCH_CPU_PROF=<dir> writes the
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
 * CPU seconds a process has used so far (user + system, all its threads), and its main thread's
 * alone (the sandbox's other threads prepare encryption keys: crypto/key-pool.ts). Linux only.
 */
function cpuSeconds(pid) {
  const ticks = (file) => {
    const f = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in USER_HZ (100 a second)
  };
  try {
    let all = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) all += ticks(`/proc/${pid}/task/${tid}/stat`);
    return { all, main: ticks(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return { all: NaN, main: NaN };
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
/** The sides measured, each in its own process: this build's sandbox, the bare server, and another build's sandbox (BENCH_BEFORE_BIN). */
const sides = [
  { name: 'sandbox', target: await startSandbox(sandboxArgs, { durable, bin: process.env.BENCH_BIN, nodeArgs: profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] }) },
  { name: 'bare', target: await startBare() },
];
if (process.env.BENCH_BEFORE_BIN) sides.push({ name: 'before', target: await startSandbox(sandboxArgs, { durable, bin: process.env.BENCH_BEFORE_BIN }) });
for (const side of sides) Object.assign(side, { rates: [], cpu: { all: 0, main: 0, client: 0 } });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const ratios = [];
  let failures = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // Each side goes first in turn: what the machine does meanwhile falls on each alike.
    const order = sides.map((_, i) => sides[(i + r) % sides.length]);
    const round = {};
    for (const side of order) {
      const before = cpuSeconds(side.target.pid);
      const client = process.cpuUsage();
      const res = await postTransfers(side.target, perRound, CONNECTIONS, `bench-r${r}`);
      const used = process.cpuUsage(client);
      const after = cpuSeconds(side.target.pid);
      side.cpu.client += (used.user + used.system) / 1e6;
      side.cpu.all += after.all - before.all;
      side.cpu.main += after.main - before.main;
      failures += res.failures;
      round[side.name] = res.perSecond;
      side.rates.push(res.perSecond);
    }
    ratios.push(round.sandbox / round.bare);
    console.log(`  round ${r + 1}/${ROUNDS}: ${sides.map((x) => `${x.name} ${fmt(round[x.name], 0)} req/s`).join(', ')}; sandbox/bare ${fmt(round.sandbox / round.bare, 2)}x${round.before ? `, before/bare ${fmt(round.before / round.bare, 2)}x` : ''}`);
  }
  // CPU per request is steadier than requests per second on a shared machine: it shows what each
  // side costs, whatever else runs (a sandbox settles each transfer 1 ms later: in its round too).
  const us = (x) => fmt((x * 1e6) / (perRound * ROUNDS), 0);
  for (const x of sides) {
    console.log(`${x.name}: median ${fmt(median(x.rates), 0)} req/s; CPU per request ${us(x.cpu.all)} us, main thread ${us(x.cpu.main)} us, the client ${us(x.cpu.client)} us`);
  }
  const [s, b] = sides.map((x) => median(x.rates));
  const ratio = median(ratios);
  console.log(`sandbox (${kind}${process.env.BENCH_BIN ? `, ${process.env.BENCH_BIN}` : ''}): ${perRound * ROUNDS} POST /v1/transfers in ${ROUNDS} rounds, ${fmt(s, 0)} req/s = ${fmt(ratio, 2)}x the bare server's ${fmt(b, 0)} req/s (${failures} failed)`);
  report('sandbox throughput', [
    {
      label: `sandbox, ${perRound * ROUNDS} POST /v1/transfers over ${CONNECTIONS} connections (${kind})`,
      value: `${fmt(s, 0)} req/s = ${fmt(ratio, 2)}x a bare node:http + libsql server doing one durable INSERT per request (${fmt(b, 0)} req/s, same run), ${failures} failed`,
      aim: '>= 0.7x the bare server',
    },
  ]);
  if (failures) process.exitCode = 1;
} finally {
  await Promise.all(sides.map((x) => x.target.stop()));
}
