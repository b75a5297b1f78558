// The sandbox's contract as an OpenAPI 3.1 document (docs/openapi.md): built from the route table
// of the sandbox's router, the per-route documentation (operations.ts), the error codes (codes.ts)
// and the component schemas generated from the tool's zod schemas (json-schema.ts). Served at
// GET /openapi.json (handlers/openapi.ts) and written to docs/openapi.yaml
// (scripts/gen-openapi.mjs). Deterministic: the same routes give the same document.
import { IDEMPOTENCY_KEY_RE } from '../../domain/idempotency.js';
import { VERSION } from '../../version.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../defaults.js';
import { ERROR_CODES, type ErrorCode } from './codes.js';
import { componentSchemas, ref, type JsonSchema } from './json-schema.js';
import { OPERATIONS, TAGS, type OperationDoc } from './operations.js';
import { openApiPath, pathParams, type RouteTableEntry } from './route-table.js';

export type OpenApiDocument = Record<string, unknown>;

/** What any route can answer, before or around its handler (http/server.ts, http/respond.ts). */
const PIPELINE_CODES: readonly ErrorCode[] = [
  'invalid_request', 'forbidden_origin', 'request_timeout', 'payload_too_large', 'unsupported_media_type',
  'expectation_failed', 'invalid_host', 'request_header_fields_too_large', 'internal_error', 'state_locked',
];
/** What a request no operation takes can be answered (`x-unrouted-responses`). */
const UNROUTED_CODES: readonly ErrorCode[] = [
  'invalid_request', 'forbidden_origin', 'not_found', 'method_not_allowed', 'request_timeout',
  'expectation_failed', 'invalid_host', 'request_header_fields_too_large', 'internal_error',
];

const RESPONSE_REF = '#/components/responses/';
const HEADER_REF = '#/components/headers/';

const HEADERS = {
  'X-Request-Id': { description: 'The request id (`req_` and 32 hex digits), also in an error body.', schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' } },
  'Idempotent-Replayed': { description: '`true` on an answer replayed for a repeated Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  Allow: { description: 'The methods the path takes.', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'string', pattern: '^[0-9]+$' } },
};

function headers(replayable: boolean, extra: string[] = []): JsonSchema {
  const names = ['X-Request-Id', ...(replayable ? ['Idempotent-Replayed'] : []), ...extra];
  return Object.fromEntries(names.map((n) => [n, { $ref: `${HEADER_REF}${n}` }]));
}

/** The answer of GET /openapi.json: an OpenAPI 3.1 document (this one), open to every field it has. */
const DOCUMENT_SCHEMA = {
  description: 'An OpenAPI 3.1 document: this one.',
  type: 'object',
  properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
  required: ['openapi', 'info', 'paths', 'components'],
  additionalProperties: true,
};

const REASONS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** An error answer whose `code` is one of `codes`. */
function errorResponse(codes: readonly ErrorCode[], replayable: boolean, extraHeaders: string[] = []): JsonSchema {
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].when}`).join('; '),
    headers: headers(replayable, extraHeaders),
    content: json({ allOf: [ref('Error'), { properties: { error: { properties: { code: { enum: [...codes] } } } } }] }),
  };
}

/** Headers an error answer carries beyond X-Request-Id. */
const EXTRA_HEADERS: Partial<Record<ErrorCode, string[]>> = { method_not_allowed: ['Allow'], state_locked: ['Retry-After'] };

/** One shared response per error code: what a status with that code alone refers to. */
function codeResponses(): JsonSchema {
  return Object.fromEntries(Object.keys(ERROR_CODES).map((c) => [c, errorResponse([c as ErrorCode], false, EXTRA_HEADERS[c as ErrorCode] ?? [])]));
}

function byStatus(codes: Iterable<ErrorCode>): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const c of new Set(codes)) out.set(ERROR_CODES[c].status, [...(out.get(ERROR_CODES[c].status) ?? []), c]);
  return new Map([...out].sort(([a], [b]) => a - b));
}

function responses(route: RouteTableEntry, doc: OperationDoc): JsonSchema {
  const own = new Set<ErrorCode>(['invalid_request', ...(doc.errors ?? [])]);
  const all = [...PIPELINE_CODES, ...(route.auth === 'none' ? [] : ['unauthorized' as const]), ...(route.idempotent ? ['idempotency_key_reused' as const] : []), ...own];
  const out: JsonSchema = {};
  for (const [status, answer] of Object.entries(doc.ok)) {
    const schema = answer === 'Document' ? DOCUMENT_SCHEMA : ref(answer);
    out[status] = { description: `${REASONS[Number(status)] ?? 'Success'}: ${answer === 'Document' ? 'this document' : answer}`, headers: headers(route.idempotent), content: json(schema) };
  }
  for (const [status, codes] of byStatus(all)) {
    // An Idempotency-Key replays what the handler answered below 500, never the pipeline's own errors.
    const replayable = route.idempotent && status < 500 && codes.some((c) => own.has(c));
    out[String(status)] = codes.length === 1 && !replayable ? { $ref: `${RESPONSE_REF}${codes[0]}` } : errorResponse(codes, replayable);
  }
  return out;
}

function operation(route: RouteTableEntry, doc: OperationDoc): JsonSchema {
  const parameters = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(doc.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema })),
    ...(route.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];
  const description = [doc.description, doc.beyondSpec ? 'Beyond the service\u2019s specification.' : undefined].filter(Boolean).join(' ');
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(description ? { description } : {}),
    tags: [doc.tag],
    ...(doc.beyondSpec ? { 'x-beyond-spec': true } : {}),
    security: route.auth === 'api' ? [{ apiKey: [] }] : route.auth === 'admin' ? [{ adminToken: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body ? { requestBody: { required: doc.body.required, content: json(ref(doc.body.schema)) } } : {}),
    responses: responses(route, doc),
  };
}

/** The routes the router serves against those documented: both ways, or the build fails. */
function checkCoverage(routes: readonly RouteTableEntry[]): void {
  const served = new Set(routes.map((r) => `${r.method} ${r.path}`));
  const undocumented = [...served].filter((k) => !OPERATIONS[k]);
  const stale = Object.keys(OPERATIONS).filter((k) => !served.has(k));
  if (undocumented.length || stale.length) {
    throw new Error(`the OpenAPI document and the router disagree (src/sandbox/openapi/operations.ts):${undocumented.length ? ` served but undocumented: ${undocumented.join(', ')};` : ''}${stale.length ? ` documented but not served: ${stale.join(', ')};` : ''}`);
  }
}

export function buildOpenApiDocument(routes: readonly RouteTableEntry[]): OpenApiDocument {
  checkCoverage(routes);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const p = (paths[openApiPath(route.path)] ??= {});
    p[route.method.toLowerCase()] = operation(route, OPERATIONS[`${route.method} ${route.path}`]!);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc sandbox',
      version: VERSION,
      summary: 'The local emulator of the confidential payments service, as `svc sandbox start` serves it.',
      description: [
        'Every route the sandbox answers: the service\u2019s (`/v1`), its extensions and its control API (`/_sandbox`);',
        'each operation\u2019s statuses and error codes. Operations and codes beyond the service\u2019s specification say so',
        '(`x-beyond-spec`, `x-error-codes`). Every answer is JSON with an `X-Request-Id`; no answer carries `null`',
        '(an unset field is omitted) nor a plaintext amount. Objects are open: a client ignores fields it does not know.',
        'See docs/openapi.md and docs/sandbox.md.',
      ].join(' '),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: `http://${DEFAULT_HOST}:{port}`, description: 'A local sandbox (loopback only)', variables: { port: { default: String(DEFAULT_PORT) } } }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: componentSchemas(),
      responses: codeResponses(),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key', in: 'header', required: false,
          description: 'The same key with the same request replays the first answer (below 500); with another request, 409 idempotency_key_reused.',
          schema: { type: 'string', pattern: IDEMPOTENCY_KEY_RE.source },
        },
      },
      headers: HEADERS,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A `svc_test_` API key (a `svc_live_` key is always refused).' },
        adminToken: { type: 'apiKey', in: 'header', name: 'X-Sandbox-Admin-Token', description: 'The admin token of this sandbox run (`Authorization: Bearer <token>` is accepted too).' },
      },
    },
    'x-unrouted-responses': Object.fromEntries([...byStatus(UNROUTED_CODES)].map(([status, codes]) => [String(status), codes.length === 1 ? { $ref: `${RESPONSE_REF}${codes[0]}` } : errorResponse(codes, false)])),
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, info]) => [code, { status: info.status, 'beyond-spec': !info.spec, when: info.when }])),
  };
}
