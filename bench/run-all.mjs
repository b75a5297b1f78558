// Runs every benchmark in turn and writes what they measured to bench/results.md (the figures
// the README quotes). Not part of the test run: `npm run bench`. BENCH_ONLY=startup,levers runs a subset; BENCH_SUITE=1 also times the test suite (suite.mjs).
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aimRows, aimsConsole, aimsTable, appendRun, previousRun, withReadmeTable } from './aims.mjs';

const SCRIPTS = ['startup', 'keyring', 'installed', 'snapshot', 'levers', 'sandbox-post', 'sandbox-pages', 'list-all', 'list-heap', 'batch', 'send-journal', 'crypto', 'webhooks', 'webhook-limits', 'proxy-timeout', 'suite'];
const only = process.env.BENCH_ONLY?.split(',');
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-results-'));
const results = join(dir, 'results.jsonl');
writeFileSync(results, '');

const loadBefore = loadavg()[0];
const failed = [];
for (const name of SCRIPTS.filter((s) => !only || only.includes(s))) {
  console.log(`\n# ${name}.mjs`);
  const r = spawnSync(process.execPath, [join(import.meta.dirname, `${name}.mjs`)], { stdio: 'inherit', env: { ...process.env, BENCH_RESULTS: results } });
  if (r.status !== 0) failed.push(name);
}

const sections = readFileSync(results, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const historyFile = join(import.meta.dirname, 'aims-history.jsonl');
const before = previousRun(historyFile);
const load = `${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
const date = new Date().toISOString().slice(0, 10);
const run = { date, node: process.version, cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`, load, rows: aimRows(sections) };

const cell = (x, digits = 1) => (x === undefined ? '' : Number.isFinite(x) ? x.toFixed(digits) : String(x));
const lines = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` on ${date}: Node ${process.version}, ${run.cpus}; load average ${load}.`,
  'Wall times are medians of interleaved runs, shown with `node -e 0` from the same run and as a ratio to it.',
  '',
  '## Aims',
  '',
  'Every row that states an aim, with its reference from the same run, beside the run before this one.',
  '',
  aimsTable(run, before),
  '',
];
for (const { section, note, rows } of sections) {
  lines.push(`## ${section}`, '', ...(note ? [`${note}.`, ''] : []));
  lines.push('| what | ms | × node -e 0 | peak RSS MB | figure | aim |', '|---|---:|---:|---:|---|---|');
  for (const r of rows) lines.push(`| ${r.label.trim()} | ${cell(r.ms)} | ${cell(r.ratio, 2)} | ${cell(r.rssMb, 0)} | ${r.value ?? ''} | ${r.aim ?? ''} |`);
  lines.push('');
}
if (failed.length) lines.push(`Failed: ${failed.join(', ')} (see the console output).`, '');
console.log(`\n${aimsConsole(run)}`);
if (!only) {
  writeFileSync(join(import.meta.dirname, 'results.md'), lines.join('\n'));
  // README's table follows the full runs only: a subset would leave rows out.
  const readme = join(import.meta.dirname, '..', 'README.md');
  writeFileSync(readme, withReadmeTable(readFileSync(readme, 'utf8'), run, before));
  appendRun(historyFile, run);
} else console.log(`\n(BENCH_ONLY: bench/results.md, README.md and the aims history not rewritten)\n${lines.join('\n')}`);
rmSync(dir, { recursive: true, force: true });
if (failed.length) process.exitCode = 1;
