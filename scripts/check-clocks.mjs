// Fails `npm test` when code in src/ reads the machine's clock outside the two clock modules:
// the tool's (src/clock.ts) and the sandbox's (src/sandbox/clock.ts). Everything else is handed
// a clock, so a test runs at the instant its fixture says, whatever the date (and under faketime).
// What counts: Date.now (called or passed), `new Date()` without an argument, and Date() called
// as a function. Date.parse(text) and new Date(value) read no clock.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const CLOCK_MODULES = ['clock.ts', join('sandbox', 'clock.ts')];

const SRC = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'src'));
const READS = [
  { re: /\bDate\.now\b/g, what: 'Date.now' },
  { re: /\bnew\s+Date\s*\(\s*\)/g, what: 'new Date()' },
  { re: /(?<![.\w]|new\s)Date\s*\(/g, what: 'Date()' },
];

/**
 * The text with comments and quoted strings blanked (same length, so offsets keep their lines).
 * Template literals stay: their `${...}` parts are code.
 */
function codeOnly(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, (m) => m.replace(/[^\n]/g, ' '));
}

const found = [];
const files = readdirSync(SRC, { recursive: true }).map(String).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
for (const file of files) {
  if (CLOCK_MODULES.includes(file)) continue;
  const code = codeOnly(readFileSync(join(SRC, file), 'utf8'));
  for (const { re, what } of READS) {
    for (const m of code.matchAll(re)) {
      const line = code.slice(0, m.index).split('\n').length;
      found.push(`  ${relative(dirname(SRC), join(SRC, file))}:${line}: ${what}`);
    }
  }
}
if (found.length) {
  console.error(`the machine's clock read outside ${CLOCK_MODULES.map((m) => `src/${m}`).join(' and ')} (take the injected clock instead):\n${found.sort().join('\n')}`);
  process.exit(1);
}
console.log(`no clock read outside the clock modules among ${files.length} modules`);
