// Preloaded with --import: writes the process's peak resident set size (KiB) at exit.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
