// `svc sandbox start` (the built bin/svc.js: `npm run build` first) serves its contract at
// GET /openapi.json, without a key or token, as JSON: the document docs/openapi.yaml holds.
// It is built on the first request: the bundle's file holding the document's module is not
// loaded when the sandbox starts, only once the document is asked for.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../src/sandbox/handlers/openapi.js';
import { sandboxRoutes } from '../../src/sandbox/handlers/routes.js';
import { buildOpenApiDocument } from '../../src/sandbox/openapi/document.js';
import { ROOT, spawnSandbox, type SpawnedSandbox } from '../helpers/run.js';

const BUNDLE = join(ROOT, 'dist', 'bundle');
let work: string;
let log: string;
let sandbox: SpawnedSandbox;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
  log = join(work, 'bundle-loader.log');
  writeFileSync(log, '');
  // The bundle loader (bin/bundle-loader.js) writes down every file of the bundle the sandbox
  // process loads, as it loads it.
  sandbox = await spawnSandbox(['sandbox', 'start', '--port', '0', '--ephemeral', '--quiet'], {
    SVC_CONFIG_DIR: join(work, 'config'),
    NO_COLOR: '1',
    SVC_DEBUG_CODE_CACHE: log,
  });
}, 30_000);
afterAll(async () => {
  await sandbox?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The bundle's files the sandbox process has loaded so far. */
const loaded = () => readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('load ')).map((l) => l.split(' ')[1]!);

/** The bundle's file holding the document's module (its `x-unrouted-responses` is written nowhere else). */
function documentChunk(): string {
  const files = existsSync(BUNDLE) ? readdirSync(BUNDLE).filter((f) => f.endsWith('.cjs') && readFileSync(join(BUNDLE, f), 'utf8').includes('x-unrouted-responses')) : [];
  expect(files, 'run `npm run build` first').toHaveLength(1);
  return files[0]!;
}

describe('GET /openapi.json', () => {
  it('is not built at start: the document\'s module loads on the first request, and the answer is the document, as JSON, without a key', async () => {
    const chunk = documentChunk();
    const atStart = loaded();
    expect(atStart).toContain('svc.cjs'); // the log saw the sandbox start ...
    expect(atStart).not.toContain(chunk); // ... without the document

    const res = await fetch(`${sandbox.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(routeTable(sandboxRoutes())))));
    expect(loaded()).toContain(chunk);

    const again = await fetch(`${sandbox.url}/openapi.json`, { headers: { authorization: 'Bearer svc_test_whatever' } });
    expect(again.status).toBe(200);
    expect((await again.json() as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('takes GET only', async () => {
    const res = await fetch(`${sandbox.url}/openapi.json`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});
