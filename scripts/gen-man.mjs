#!/usr/bin/env node
// Regenerates man/svc.1 from the built program: `node bin/svc.js __man` (src/cli/man-page.ts).
// Run after `npm run build` (npm run man does both). With --check it changes nothing and exits 1
// when the committed page is out of date.
import { syncGenerated } from './generated-file.mjs';

process.exitCode = syncGenerated('man/svc.1', ['__man'], 'npm run man') ? 0 : 1;
