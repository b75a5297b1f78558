// Once per `vitest run`: says which tests were skipped for want of a program, at the end where the
// summary is read, or (SVC_TEST_REQUIRE_TOOLS=1, as .ci/run sets) refuses to run without them, so
// CI skips none.
import { missingTools, TEST_TOOLS } from './helpers/tools.js';

export function setup(): () => void {
  const missing = missingTools();
  if (missing.length && process.env.SVC_TEST_REQUIRE_TOOLS === '1') {
    throw new Error(`SVC_TEST_REQUIRE_TOOLS=1 but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed (Debian: apt-get install ${missing.map((t) => TEST_TOOLS[t].debian).join(' ')})`);
  }
  return () => {
    if (!missing.length) return;
    const lines = missing.map((t) => `  ${t} is not installed: its ${TEST_TOOLS[t].for} were SKIPPED (Debian package ${TEST_TOOLS[t].debian})`);
    process.stderr.write(`\nskipped for want of a program (.ci/run installs them all):\n${lines.join('\n')}\n`);
  };
}
