// Preloaded with --import: writes the process's peak resident set size (KiB) at exit, and with
// BENCH_CPU_FILE its CPU time (user and system µs, every thread of the process: getrusage).
// On Linux the peak is VmHWM (/proc/self/status), not getrusage's maxRSS: Linux carries into
// maxRSS the resident size of the forked copy of the parent that ran exec, so a child of a bench
// holding 100 MB reported >= 100 MB whatever it used itself (`node -e 0`: 55 MB instead of 43).
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
const cpuFile = process.env.BENCH_CPU_FILE;

/** Peak RSS in KiB of this process since its exec (every thread: they share one address space). */
function peakKib() {
  try {
    const m = /^VmHWM:\s*(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // not Linux: getrusage below
  }
  return process.resourceUsage().maxRSS;
}

if (file || cpuFile) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    if (file) writeFileSync(file, String(peakKib()));
    if (cpuFile) writeFileSync(cpuFile, JSON.stringify({ user: usage.userCPUTime, system: usage.systemCPUTime }));
  });
}
