// Runs every benchmark in turn and writes what they measured to bench/results.md (the figures
// the README quotes). Not part of the test run: `npm run bench`. BENCH_ONLY=startup,levers runs a subset; BENCH_SUITE=1 also times the test suite (suite.mjs).
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPTS = ['startup', 'keyring', 'installed', 'snapshot', 'levers', 'sandbox-post', 'sandbox-pages', 'list-all', 'list-heap', 'batch', 'send-journal', 'crypto', 'webhooks', 'webhook-limits', 'proxy-timeout', 'suite'];
const only = process.env.BENCH_ONLY?.split(',');
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-results-'));
const results = join(dir, 'results.jsonl');
writeFileSync(results, '');

const failed = [];
for (const name of SCRIPTS.filter((s) => !only || only.includes(s))) {
  console.log(`\n# ${name}.mjs`);
  const r = spawnSync(process.execPath, [join(import.meta.dirname, `${name}.mjs`)], { stdio: 'inherit', env: { ...process.env, BENCH_RESULTS: results } });
  if (r.status !== 0) failed.push(name);
}

const cell = (x, digits = 1) => (x === undefined ? '' : Number.isFinite(x) ? x.toFixed(digits) : String(x));
const lines = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}.`,
  'Wall times are medians of interleaved runs, shown with `node -e 0` from the same run and as a ratio to it.',
  '',
];
for (const line of readFileSync(results, 'utf8').split('\n').filter(Boolean)) {
  const { section, note, rows } = JSON.parse(line);
  lines.push(`## ${section}`, '', ...(note ? [`${note}.`, ''] : []));
  lines.push('| what | ms | × node -e 0 | peak RSS MB | figure | aim |', '|---|---:|---:|---:|---|---|');
  for (const r of rows) lines.push(`| ${r.label.trim()} | ${cell(r.ms)} | ${cell(r.ratio, 2)} | ${cell(r.rssMb, 0)} | ${r.value ?? ''} | ${r.aim ?? ''} |`);
  lines.push('');
}
if (failed.length) lines.push(`Failed: ${failed.join(', ')} (see the console output).`, '');
if (!only) writeFileSync(join(import.meta.dirname, 'results.md'), lines.join('\n'));
else console.log(`\n(BENCH_ONLY: bench/results.md not rewritten)\n${lines.join('\n')}`);
rmSync(dir, { recursive: true, force: true });
if (failed.length) process.exitCode = 1;
