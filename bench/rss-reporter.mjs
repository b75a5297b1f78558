// Preloaded with --import: writes the process's peak resident set size (KiB) at exit, and with
// BENCH_CPU_FILE its CPU time (user and system µs, every thread of the process: getrusage).
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
const cpuFile = process.env.BENCH_CPU_FILE;
if (file || cpuFile) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    if (file) writeFileSync(file, String(usage.maxRSS));
    if (cpuFile) writeFileSync(cpuFile, JSON.stringify({ user: usage.userCPUTime, system: usage.systemCPUTime }));
  });
}
