// Once per `vitest run`: says which tests were skipped for want of a program, at the end where the
// summary is read, or (SVC_TEST_REQUIRE_TOOLS=1, as .ci/run sets) refuses to run without them, so
// CI skips none.
import { missingTools, TEST_TOOLS } from './helpers/tools.js';

export function setup(): () => void {
  // Node 20 reads and parses the whole file NODE_EXTRA_CA_CERTS names when a process starts (22
  // and 24 wait until TLS needs it). A machine that points it at the system bundle (this one:
  // /etc/ssl/certs/ca-certificates.crt, ~140 certificates) adds ~50-90 ms of CPU to every node
  // the suite starts (docs/performance-suite.md). The tests' own TLS trusts its CA explicitly
  // (test/helpers/tls.ts), so the workers and everything they start run without it; npm in
  // install.test.ts gets it back (it may need it to reach the registry).
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  if (extraCa !== undefined) {
    process.env.SVC_TEST_HOST_NODE_EXTRA_CA_CERTS = extraCa;
    delete process.env.NODE_EXTRA_CA_CERTS;
  }
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
