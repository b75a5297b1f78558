import { defineConfig } from 'vitest/config';

// Two projects, both run by `npm test`: the property tests (fast-check against the sandbox, the
// slowest part of the run) apart, so `npx vitest --project main` is a quick loop.
const PROPERTY_TESTS = 'test/**/property.test.ts';
const common = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' } as const;

export default defineConfig({
  test: {
    // Once per run (not per project): which tests were skipped for want of a program.
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { test: { ...common, name: 'main', include: ['test/**/*.test.ts'], exclude: [PROPERTY_TESTS] } },
      { test: { ...common, name: 'property', include: [PROPERTY_TESTS] } },
    ],
  },
});
