// The document's component schemas, generated from the zod schemas (answers.ts, requests.ts) by
// zod's own converter, then tidied for readers of the YAML: no per-schema `$schema`/`$id`, no
// `additionalProperties: {}` (objects are open either way), no ±2^53 bounds zod gives every
// integer, and every timestamp as a reference to one `Timestamp` schema.
import * as z from 'zod/mini';
import { ANSWER_DESCRIPTIONS, ANSWER_SCHEMAS } from './answers.js';
import { REQUEST_DESCRIPTIONS, REQUEST_SCHEMAS } from './requests.js';

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_REF = '#/components/schemas/';
export const ref = (name: string): JsonSchema => ({ $ref: `${SCHEMA_REF}${name}` });

const TIMESTAMP = 'Timestamp';

/** Every named schema of the document, by name (answers, requests and `Timestamp`). */
export function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string; description?: string }>();
  const describe = (name: string, d: Partial<Record<string, string>>) => ({ id: name, ...(d[name] ? { description: d[name] } : {}) });
  for (const [name, schema] of Object.entries(ANSWER_SCHEMAS)) registry.add(schema, describe(name, ANSWER_DESCRIPTIONS));
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) registry.add(schema, describe(name, REQUEST_DESCRIPTIONS));
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', metadata: registry, uri: (id) => `${SCHEMA_REF}${id}`, unrepresentable: 'throw' });
  // A schema shared by two components but named by neither would land here: name it instead.
  if ('__shared' in schemas) throw new Error(`openapi: unnamed shared schemas ${Object.keys(schemas.__shared?.$defs ?? {}).join(', ')}`);

  let timestamp: JsonSchema | undefined;
  const tidy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(tidy);
    if (!node || typeof node !== 'object') return node;
    const o = node as JsonSchema;
    if (o.type === 'string' && o.format === 'date-time') {
      timestamp ??= { description: 'ISO 8601 date-time; the sandbox answers in UTC.', type: 'string', format: 'date-time', pattern: o.pattern };
      if (o.pattern === timestamp.pattern && Object.keys(o).every((k) => ['type', 'format', 'pattern'].includes(k))) return ref(TIMESTAMP);
    }
    // A description reads first, above the shape it describes.
    const out: JsonSchema = 'description' in o ? { description: o.description } : {};
    for (const [k, v] of Object.entries(o)) {
      if (k === '$schema' || k === '$id') continue;
      if (k === 'additionalProperties' && v && typeof v === 'object' && Object.keys(v).length === 0) continue;
      if (o.type === 'integer' && ((k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER))) continue;
      out[k] = tidy(v);
    }
    return out;
  };
  const tidied = Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, tidy(s) as JsonSchema]));
  return { ...(timestamp ? { [TIMESTAMP]: timestamp } : {}), ...tidied };
}
