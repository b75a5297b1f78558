#!/usr/bin/env node
// Writes docs/openapi.yaml, the sandbox's contract, from the compiled sources (dist/: run `npm run
// build` first; npm run openapi does both): the sandbox's own route table, documented by
// src/sandbox/openapi/. With --check it changes nothing and exits 1 when the committed file is out
// of date. A running sandbox serves the same document at GET /openapi.json (docs/openapi.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checking, root } from './generated-file.mjs';

const load = (module) => import(join(root, 'dist', module));
const [{ sandboxRoutes }, { routeTable }, { OPENAPI_FILE, openApiYaml }] = await Promise.all([
  load('sandbox/handlers/routes.js'),
  load('sandbox/handlers/openapi.js'),
  load('sandbox/openapi/file.js'),
]);

const text = openApiYaml(routeTable(sandboxRoutes()));
const path = join(root, OPENAPI_FILE);
let current = '';
try {
  current = readFileSync(path, 'utf8');
} catch {
  // not generated yet
}
if (current === text) {
  console.log(`${OPENAPI_FILE}: up to date`);
} else if (checking) {
  console.error(`${OPENAPI_FILE}: out of date (run \`npm run openapi\`)`);
  process.exitCode = 1;
} else {
  writeFileSync(path, text);
  console.log(`${OPENAPI_FILE}: written`);
}
