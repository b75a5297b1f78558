// The aims `npm run bench` is held to: every row a script reports with `met` (true or false) is
// an aim, shown with its figure and its reference from the same run. run-all.mjs collects them
// into the summary it prints last, the "Aims" section of bench/results.md (this run beside the
// one before, from bench/aims-history.jsonl) and README.md's performance table.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** The rows of every section that state an aim met or not. */
export function aimRows(sections) {
  const out = [];
  for (const { rows } of sections) for (const r of rows) if (typeof r.met === 'boolean') out.push({ label: r.label.trim(), figure: r.figure ?? r.value ?? '', reference: r.reference ?? '', aim: r.aim ?? '', met: r.met });
  return out;
}

/** The last full run before this one, from the history file (undefined when there is none). */
export function previousRun(historyFile) {
  if (!existsSync(historyFile)) return undefined;
  const lines = readFileSync(historyFile, 'utf8').split('\n').filter(Boolean);
  return lines.length ? JSON.parse(lines.at(-1)) : undefined;
}

export function appendRun(historyFile, run) {
  appendFileSync(historyFile, `${JSON.stringify(run)}\n`);
}

const cell = (s) => String(s).replaceAll('|', '\\|');
const verdict = (met) => (met === undefined ? 'not measured' : met ? 'met' : '**not met**');

/** Markdown: each aim, its figure and reference, met or not, and what the run before said. */
export function aimsTable(run, before) {
  const prior = new Map((before?.rows ?? []).map((r) => [r.label, r]));
  const lines = [
    `| what | figure | reference (same run) | aim | this run | run before${before ? ` (${before.date})` : ''} |`,
    '|---|---|---|---|---|---|',
  ];
  for (const r of run.rows) lines.push(`| ${cell(r.label)} | ${cell(r.figure)} | ${cell(r.reference)} | ${cell(r.aim)} | ${verdict(r.met)} | ${verdict(prior.get(r.label)?.met)} |`);
  return lines.join('\n');
}

/** One line for the console per aim. */
export function aimsConsole(run) {
  const met = run.rows.filter((r) => r.met).length;
  return [`aims: ${met} of ${run.rows.length} met`, ...run.rows.map((r) => `  ${r.met ? 'met    ' : 'NOT MET'}  ${r.label}: ${r.figure} (aim ${r.aim}; reference ${r.reference || 'none'})`)].join('\n');
}

/** README.md with the text between the bench markers replaced. */
export function withReadmeTable(readme, run, before) {
  const start = '<!-- bench:aims:start -->';
  const end = '<!-- bench:aims:end -->';
  const i = readme.indexOf(start);
  const j = readme.indexOf(end);
  if (i < 0 || j < i) return readme;
  const body = [
    '',
    `Written by \`npm run bench\` on ${run.date} (Node ${run.node}, ${run.cpus}; load average ${run.load}).`,
    '',
    aimsTable(run, before),
    '',
  ].join('\n');
  return readme.slice(0, i + start.length) + body + readme.slice(j);
}
