// Start-up: what a cron job or a person pays on every call. Each command against a loopback
// sandbox (its own process), as medians of interleaved runs with `node -e 0` of the same Node,
// plus peak RSS, on Node 20, 22 and 24 (the other majors fetched as .ci/run does: lib.mjs
// nodeOfMajor; a Node that cannot be had is said so, not measured). The sandbox profile has
// learnt its account (the first `balance` below fills the cache), and svc's code cache is warm
// (the warm-up round: bin/bundle-loader.js).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, HOST_EXTRA_CA, nodeOfMajor, ROOT, startSandbox } from './lib.mjs';
import { fmt, interleaved, report } from './measure.mjs';

const MAJORS = (process.env.BENCH_NODES ?? '20,22,24').split(',').map(Number);
// Issue 37's aims: ratios to `node -e 0` of the same Node; on Node 24 also svc's own time over it.
const AIMS = { account: '<= 1.8x, <= 70 MB', balance: '<= 2.0x, <= 70 MB', 'transfer ls': '<= 1.8x, <= 70 MB' };
const RATIO_AIM = { account: 1.8, balance: 2.0, 'transfer ls': 1.8 };
const RSS_AIM_MB = 70;
const OWN_MS_AIM = { major: 24, ms: 60 };

const sandbox = await startSandbox();
try {
  const env = { ...sandbox.env, SVC_NO_UPDATE_NOTIFIER: '1' };
  spawnSync(process.execPath, [BIN, '--json', 'balance'], { env, stdio: 'ignore' });
  for (const major of MAJORS) {
    const node = nodeOfMajor(major);
    if (node.missing) {
      report(`start-up on Node ${major}`, [{ label: `Node ${major}: not measured`, value: node.missing }]);
      continue;
    }
    const commands = Object.keys(AIMS);
    // Two references beside `node -e 0`: the least any Node program pays to make one request to the
    // sandbox (bench/bare-request.cjs), and, when the host sets one, `node -e 0` with its
    // NODE_EXTRA_CA_CERTS (kept out of every other row: bench/lib.mjs).
    const bareRequest = { label: 'a bare request (node:net, no checks)', args: [join(ROOT, 'bench/bare-request.cjs')], env: { BENCH_URL: sandbox.url, BENCH_KEY: sandbox.apiKey } };
    const hostCa = HOST_EXTRA_CA === undefined ? [] : [{ label: "node -e 0 with the host's NODE_EXTRA_CA_CERTS", args: ['-e', '0'], env: { NODE_EXTRA_CA_CERTS: HOST_EXTRA_CA } }];
    const rows = interleaved([
      bareRequest,
      ...hostCa,
      { label: 'svc --version', args: [BIN, '--version'], aim: '<= 1.3x' },
      { label: 'svc --help', args: [BIN, '--help'] },
      ...commands.map((c) => ({ label: `svc --json ${c}`, args: [BIN, '--json', ...c.split(' ')], aim: AIMS[c] })),
    ], env, undefined, { node: node.path });
    // Each aim says met or not, beside `node -e 0` of the same Node and the same rounds (bench/aims.mjs).
    const bare = rows[0];
    const reference = `node -e 0 ${fmt(bare.ms)} ms; a bare request ${fmt(rows[1].ms)} ms (${fmt(rows[1].ratio, 2)}x)`;
    for (const row of rows) {
      const c = commands.find((name) => row.label === `svc --json ${name}`);
      if (c) Object.assign(row, { label: `Node ${major}: ${row.label}`, figure: `${fmt(row.ms)} ms, ${fmt(row.ratio, 2)}x, ${fmt(row.rssMb, 0)} MB`, reference, met: row.ratio <= RATIO_AIM[c] && row.rssMb <= RSS_AIM_MB });
    }
    if (major === OWN_MS_AIM.major) {
      for (const c of commands) {
        const row = rows.find((r) => r.label === `Node ${major}: svc --json ${c}`);
        rows.push({ label: `Node ${major}: svc --json ${c}: svc's own time over node -e 0`, value: `${fmt(row.overMs)} ms`, aim: `<= ${OWN_MS_AIM.ms} ms`, figure: `${fmt(row.overMs)} ms`, reference, met: row.overMs <= OWN_MS_AIM.ms });
      }
    }
    report(`start-up on Node ${major}, one command against a loopback sandbox`, rows, `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs, Node ${node.version}`);
  }
} finally {
  await sandbox.stop();
}
