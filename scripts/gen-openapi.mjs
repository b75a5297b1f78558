#!/usr/bin/env node
// Writes docs/openapi.yaml, the sandbox's contract, from the compiled sources (dist/: run `npm run
// build` first; npm run openapi does both): the sandbox's own route table, documented by
// src/sandbox/openapi/. With --check it changes nothing and exits 1 when the committed file is out
// of date. A running sandbox serves the same document at GET /openapi.json (docs/openapi.md).
import { join } from 'node:path';
import { root, syncText } from './generated-file.mjs';

const load = (module) => import(join(root, 'dist', module));
const [{ sandboxRoutes }, { routeTable }, { OPENAPI_FILE, openApiYaml }] = await Promise.all([
  load('sandbox/handlers/routes.js'),
  load('sandbox/handlers/openapi.js'),
  load('sandbox/openapi/file.js'),
]);

if (!syncText(OPENAPI_FILE, openApiYaml(routeTable(sandboxRoutes())), 'npm run openapi')) process.exitCode = 1;
