// Start-up: what a cron job or a person pays on every call. Each command against a loopback
// sandbox (its own process), as medians of interleaved runs with `node -e 0`, plus peak RSS.
// The sandbox profile has learnt its account (the first `balance` below fills the cache).
import { spawnSync } from 'node:child_process';
import { BIN, startSandbox } from './lib.mjs';
import { interleaved, report } from './measure.mjs';

const sandbox = await startSandbox();
try {
  const env = { ...sandbox.env };
  spawnSync(process.execPath, [BIN, '--json', 'balance'], { env, stdio: 'ignore' });
  const rows = interleaved([
    { label: 'svc --version', args: [BIN, '--version'], aim: '<= 1.3x' },
    { label: 'svc --help', args: [BIN, '--help'] },
    { label: 'svc --json account', args: [BIN, '--json', 'account'], aim: '<= 2.5x, <= 70 MB' },
    { label: 'svc --json balance', args: [BIN, '--json', 'balance'], aim: '<= 2.5x, <= 70 MB' },
    { label: 'svc --json transfer ls', args: [BIN, '--json', 'transfer', 'ls'], aim: '<= 2.5x, <= 70 MB' },
  ], env);
  report('start-up, one command against a loopback sandbox', rows, `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs, Node ${process.version}`);
} finally {
  await sandbox.stop();
}
