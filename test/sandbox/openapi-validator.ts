// Holds one sandbox answer against the OpenAPI document (docs/openapi.md): the operation exists
// (or, for a request none takes, `x-unrouted-responses`), the status is listed for it, the body
// validates against that response's schema with ajv (JSON Schema 2020-12, as the document
// declares), the error `code` is one the response lists (its schema's enum), every header beyond
// the usual ones is declared, and no object carries a field its schema does not list: the
// document's objects are open for clients, so the check closes every one of them
// (`unevaluatedProperties: false`) before it compiles them.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

export interface Answer {
  method: string;
  /** Without the query. */
  path: string;
  status: number;
  text: string;
  /** Headers beyond those every answer carries (the pipeline's extra ones). */
  headers: Record<string, string>;
}

const SCHEMAS = '#/components/schemas/';
const DOC_ID = 'https://svc.invalid/openapi';
/** Sent on every answer, or hop-by-hop: not part of an operation's contract. */
const USUAL_HEADERS = new Set(['content-type', 'content-length', 'cache-control', 'x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** A copy with every object schema closed and every reference pointed at the compiled defs. */
function prepare(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(prepare);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMAS) ? `${DOC_ID}#/$defs/${v.slice(SCHEMAS.length)}` : prepare(v);
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined && out.unevaluatedProperties === undefined) out.unevaluatedProperties = false;
  return out;
}

interface Operation {
  template: string[];
  method: string;
  responses: Json;
}

export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true, formats: { 'date-time': true } });
  private readonly compiled = new Map<unknown, ValidateFunction>();
  private readonly operations: Operation[] = [];

  constructor(private readonly doc: Json) {
    const components = doc.components as { schemas: Json };
    this.ajv.addSchema({ $id: DOC_ID, $defs: prepare(components.schemas) as Json });
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(methods)) {
        this.operations.push({ template: path.split('/'), method: method.toUpperCase(), responses: (op as Json).responses as Json });
      }
    }
  }

  /** Every schema of the document compiles (throws otherwise). */
  compileAll(): number {
    const defs = Object.keys((this.doc.components as { schemas: Json }).schemas);
    for (const name of defs) this.ajv.getSchema(`${DOC_ID}#/$defs/${name}`) ?? (() => { throw new Error(`no schema ${name}`); })();
    return defs.length;
  }

  /** The operation of a method and path, by the template that matches it with the most literal segments first. */
  operationFor(method: string, path: string): { key: string; responses: Json } | undefined {
    const parts = path.split('/');
    const fits = (t: string[]) => t.length === parts.length && t.every((seg, i) => (seg.startsWith('{') ? parts[i] !== '' : seg === parts[i]));
    const rank = (t: string[]) => t.map((s) => (s.startsWith('{') ? '1' : '0')).join('');
    const found = this.operations.filter((o) => o.method === method && fits(o.template)).sort((a, b) => rank(a.template).localeCompare(rank(b.template)))[0];
    return found ? { key: `${method} ${found.template.join('/')}`, responses: found.responses } : undefined;
  }

  private resolve(response: Json): Json {
    const r = response.$ref;
    if (typeof r !== 'string') return response;
    const name = r.replace('#/components/responses/', '');
    const found = (this.doc.components as { responses: Record<string, Json> }).responses[name];
    if (!found) throw new Error(`unresolved response ${r}`);
    return found;
  }

  private validator(schema: unknown): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) this.compiled.set(schema, (v = this.ajv.compile(prepare(schema) as Json)));
    return v;
  }

  /** What is wrong with an answer, as the document sees it; [] when it conforms. */
  check(a: Answer): string[] {
    const where = `${a.method} ${a.path} → ${a.status}`;
    const op = this.operationFor(a.method, a.path);
    const listed = op ? op.responses : (this.doc['x-unrouted-responses'] as Json);
    const raw = listed[String(a.status)] as Json | undefined;
    if (!raw) return [`${where}: status ${a.status} is not documented for ${op ? op.key : 'a request no operation takes (x-unrouted-responses)'}`];
    const response = this.resolve(raw);
    const problems: string[] = [];
    const declared = new Set(Object.keys((response.headers as Json | undefined) ?? {}).map((h) => h.toLowerCase()));
    for (const h of Object.keys(a.headers)) {
      if (!USUAL_HEADERS.has(h.toLowerCase()) && !declared.has(h.toLowerCase())) problems.push(`${where}: header ${h} is not declared`);
    }
    const schema = (response.content as Json | undefined)?.['application/json'] as Json | undefined;
    if (!schema) return [...problems, `${where}: the response declares no JSON body`];
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      return [...problems, `${where}: the body is not JSON`];
    }
    const validate = this.validator(schema.schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
      problems.push(`${where}: the body does not match ${op ? op.key : 'x-unrouted-responses'} ${a.status}:\n    ${errors.join('\n    ')}\n    body: ${a.text.slice(0, 600)}`);
    }
    return problems;
  }
}
