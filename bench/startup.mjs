// Start-up time: `svc --version` and `svc transfer ls` against bare `node -e 0` (median of 20).
import { BIN, fmt, medianMs, startSandbox } from './lib.mjs';

const N = Number(process.env.BENCH_RUNS ?? 20);
const sandbox = await startSandbox();
try {
  const env = { ...sandbox.env };
  const bare = medianMs(['-e', '0'], env, N);
  const version = medianMs([BIN, '--version'], env, N);
  const help = medianMs([BIN, '--help'], env, N);
  const ls = medianMs([BIN, 'transfer', 'ls'], env, N);
  console.log(`start-up, median of ${N} runs (ms):`);
  console.log(`  node -e 0           ${fmt(bare)}`);
  console.log(`  svc --version       ${fmt(version)}  (${fmt(version / bare, 2)}x bare node)`);
  console.log(`  svc --help          ${fmt(help)}  (${fmt(help / bare, 2)}x)`);
  console.log(`  svc transfer ls     ${fmt(ls)}  (${fmt(ls / bare, 2)}x, includes one HTTP round trip)`);
} finally {
  await sandbox.stop();
}
