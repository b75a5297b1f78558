// Runs every benchmark in turn. Not part of the test run: `npm run bench`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

for (const script of ['startup.mjs', 'crypto.mjs', 'sandbox-post.mjs', 'list-all.mjs', 'webhooks.mjs']) {
  console.log(`\n# ${script}`);
  const r = spawnSync(process.execPath, [join(import.meta.dirname, script)], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}
