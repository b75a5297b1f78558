// The OpenAPI document (docs/openapi.md): built from the sandbox's real route table, so a route
// without documentation (or documentation without a route) fails; docs/openapi.yaml is what
// `npm run openapi` writes now; every error code the sandbox's source can answer is listed, with
// its status, and those of the spec are the spec's; the schemas compile and every reference
// resolves; the YAML reads back as the document.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../src/sandbox/handlers/openapi.js';
import { sandboxRoutes } from '../../src/sandbox/handlers/routes.js';
import { ERROR_CODES } from '../../src/sandbox/openapi/codes.js';
import { buildOpenApiDocument } from '../../src/sandbox/openapi/document.js';
import { OPENAPI_FILE, openApiYaml } from '../../src/sandbox/openapi/file.js';
import { toYaml } from '../../src/sandbox/openapi/yaml.js';
import { ROOT } from '../helpers/run.js';
import { OpenApiValidator } from './openapi-validator.js';

const table = routeTable(sandboxRoutes());
const doc = buildOpenApiDocument(table);
type Json = Record<string, unknown>;
const operations = (d: Json) => Object.entries(d.paths as Record<string, Json>).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));

describe('the OpenAPI document', () => {
  it('docs/openapi.yaml is up to date (npm run openapi writes it)', () => {
    expect(readFileSync(join(ROOT, OPENAPI_FILE), 'utf8')).toBe(openApiYaml(table));
  });

  it('has one operation per route of the sandbox\'s router, and no other', () => {
    const routes = table.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect(operations(doc).sort()).toEqual(routes.sort());
    expect(routes.length).toBeGreaterThanOrEqual(35);
    expect(routes).toContain('GET /openapi.json');
  });

  it('a route added to the router without documentation fails the build, and so does documentation without its route', () => {
    const routes = sandboxRoutes();
    routes.api('GET', '/v1/secrets', () => ({ status: 200, body: {} }));
    expect(() => buildOpenApiDocument(routeTable(routes))).toThrow(/served but undocumented: GET \/v1\/secrets/);
    const fewer = table.filter((r) => r.path !== '/v1/webhooks/:id/deliveries');
    expect(() => buildOpenApiDocument(fewer)).toThrow(/documented but not served: GET \/v1\/webhooks\/:id\/deliveries/);
  });

  it('lists every error code the sandbox\'s source can answer, with its status, and no other', () => {
    const src = join(ROOT, 'src/sandbox');
    const thrown = new Map<string, number>();
    for (const f of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(src, f), 'utf8');
      for (const m of text.matchAll(/ApiFault\(\s*(\d{3}),\s*'([a-z_]+)'/g)) thrown.set(m[2]!, Number(m[1]));
      // What node's parser refuses, and an Expect it cannot meet (http/respond.ts, index.ts).
      for (const m of text.matchAll(/\[(\d{3}), '([a-z_]+)'/g)) thrown.set(m[2]!, Number(m[1]));
      for (const m of text.matchAll(/sendJson\(res, (\d{3}), JSON\.stringify\(errorBody\('([a-z_]+)'/g)) thrown.set(m[2]!, Number(m[1]));
    }
    // 499: the client is gone before it could be answered; nothing reaches it.
    thrown.delete('client_closed_request');
    expect(thrown.size).toBeGreaterThanOrEqual(30);
    expect(Object.fromEntries(Object.entries(ERROR_CODES).map(([c, i]) => [c, i.status]))).toEqual(Object.fromEntries(thrown));
    expect(Object.keys(doc['x-error-codes'] as Json).sort()).toEqual([...thrown.keys()].sort());
  });

  it('marks the spec\'s own error codes as the spec\'s, every other as beyond it', () => {
    const spec = ['invalid_request', 'invalid_policy', 'unauthorized', 'insufficient_balance', 'kyc_required', 'not_agent_owner', 'recipient_not_found', 'transaction_not_found', 'transaction_expired', 'recipient_not_confidential_ready', 'decryption_proof_invalid'];
    const codes = doc['x-error-codes'] as Record<string, { 'beyond-spec': boolean }>;
    expect(Object.keys(codes).filter((c) => !codes[c]!['beyond-spec']).sort()).toEqual(spec.sort());
  });

  it('every schema compiles (JSON Schema 2020-12, ajv strict) and every reference resolves', () => {
    expect(new OpenApiValidator(doc).compileAll()).toBeGreaterThan(40);
    const refs: string[] = [];
    const walk = (n: unknown): void => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object') for (const [k, v] of Object.entries(n)) k === '$ref' && typeof v === 'string' ? refs.push(v) : walk(v);
    };
    walk(doc);
    const resolve = (r: string) => r.slice(2).split('/').reduce<unknown>((at, seg) => (at as Json | undefined)?.[seg], doc);
    expect(refs.length).toBeGreaterThan(500);
    expect([...new Set(refs)].filter((r) => !r.startsWith('#/') || resolve(r) === undefined)).toEqual([]);
  });

  it('each operation has a unique operationId, its path parameters, and an answer for every status it lists', () => {
    const ids = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((m) => Object.values(m).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(methods)) {
        const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
        expect(params, `${path}`).toEqual(names);
        expect(Object.keys(op.responses as Json).length, path).toBeGreaterThan(8);
      }
    }
  });
});

/** Whether python3 with PyYAML is here: an independent YAML reader to read the file back with. */
const pyyaml = spawnSync('python3', ['-c', 'import yaml'], { stdio: 'ignore' }).status === 0;
const readYaml = (text: string): unknown => {
  const r = spawnSync('python3', ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], { input: text, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
};

describe('the YAML writer', () => {
  const value = {
    plain: 'A sentence with spaces.', colon: 'a: b', hash: 'a #b', yes: 'yes', off: 'Off', nul: 'null', tilde: '~', num: '200', ver: '3.1.0',
    neg: '-1', inf: '.inf', dash: '- x', star: '*x', empty: '', lead: ' x', quote: "it's", braces: '/v1/{id}', nl: 'a\nb', uni: 'caf\u00e9',
    n: 12.5, t: true, z: null, list: ['a', 'b c', 'a,b', 1], none: [], obj: {}, '200': { $ref: '#/x' }, items: [{ a: 1, b: [{ c: 'd' }] }, [1, [2]]],
  };

  it('writes bare only what reads back as the same string, and JSON text for the rest', () => {
    expect(toYaml(value)).toBe(`${[
      '"200":', '  $ref: "#/x"',
      'plain: A sentence with spaces.', 'colon: "a: b"', 'hash: "a #b"', '"yes": "yes"', '"off": "Off"', 'nul: "null"', 'tilde: "~"', 'num: "200"', 'ver: "3.1.0"',
      'neg: "-1"', 'inf: ".inf"', 'dash: "- x"', 'star: "*x"', 'empty: ""', 'lead: " x"', "quote: it's", 'braces: "/v1/{id}"', 'nl: "a\\nb"', 'uni: "caf\u00e9"',
      '"n": 12.5', 't: true', 'z: null', 'list: [a, b c, "a,b", 1]', 'none: []', 'obj: {}',
      'items:', '  - a: 1', '    b:', '      - c: d', '  - - 1', '    - [2]',
    ].join('\n')}\n`);
  });

  it.skipIf(!pyyaml)('an independent reader (PyYAML) reads it back as the same value, docs/openapi.yaml as the document', () => {
    expect(readYaml(toYaml(value))).toEqual(value);
    expect(readYaml(readFileSync(join(ROOT, OPENAPI_FILE), 'utf8'))).toEqual(JSON.parse(JSON.stringify(doc)));
  });
});
