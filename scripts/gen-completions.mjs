#!/usr/bin/env node
// Regenerates completions/ from the built program: `node bin/svc.js completion <shell>`.
// Run after `npm run build` (npm run completions does both). With --check it changes nothing
// and exits 1 when a committed script is out of date.
import { syncGenerated } from './generated-file.mjs';

const targets = { bash: 'completions/svc.bash', zsh: 'completions/_svc', fish: 'completions/svc.fish' };
let stale = 0;
for (const [shell, file] of Object.entries(targets)) {
  if (!syncGenerated(file, ['completion', shell], 'npm run completions')) stale++;
}
process.exitCode = stale ? 1 : 0;
