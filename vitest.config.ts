import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

// Three projects, all run by `npm test` (docs/performance-suite.md, "The test suite"):
// - main: the files that leave the process as they found it share one process per worker
//   (isolate: false), so the program and the sandbox are imported once per worker, not once per
//   file (~1.9 s each);
// - main-isolated: the files that change what a later file in the same process would see (a
//   module mock), each in a fresh process as before;
// - property: the property tests (fast-check against the sandbox, the longest file) apart, so
//   `npx vitest --project main` is a quick loop.
const PROPERTY_TESTS = 'test/**/property.test.ts';
const ISOLATED = ['test/sandbox/state-file-lock.test.ts'];
// One worker more than cores: many files wait on a process, a terminal or a socket they started,
// and a third worker runs meanwhile (2 cores: 204 s with two, 178 s with three; docs/performance-suite.md).
// Threads measured no faster than forks once files share a process.
const common = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks', maxWorkers: availableParallelism() + 1 } as const;

export default defineConfig({
  test: {
    // Once per run (not per project): which tests were skipped for want of a program.
    globalSetup: ['test/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    projects: [
      { test: { ...common, name: 'main', isolate: false, include: ['test/**/*.test.ts'], exclude: [PROPERTY_TESTS, ...ISOLATED] } },
      { test: { ...common, name: 'main-isolated', include: ISOLATED } },
      { test: { ...common, name: 'property', include: [PROPERTY_TESTS] } },
    ],
  },
});
