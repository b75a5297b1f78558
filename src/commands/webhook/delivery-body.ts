// What `webhook listen` reads of a delivery's body, once its signature has been checked over the
// raw bytes: strict UTF-8, nested no deeper than a limit, JSON, an object of the documented shape.
// The fields listen uses come out of the schema as strings or not at all; the parsed document is
// kept only to be printed as data (it is never asked to convert itself to anything).
import * as z from 'zod/mini';
import { nestingDepth } from '../../api/json-depth.js';

/**
 * How deep a delivery may nest. The service's are one level deep; printing a payload with
 * --json recurses, so a body 100,000 levels deep must be refused before it is parsed.
 */
export const MAX_DELIVERY_DEPTH = 32;

const text = z.string().check(z.minLength(1), z.maxLength(1024));

/**
 * The fields listen reads; any others are left alone. `timestamp` is judged apart (a missing or
 * bad one is a freshness failure, answered 401 like any verification failure, not a shape one).
 */
const DeliveryFieldsSchema = z.object({
  event_id: text,
  event: text,
  account: z.optional(text),
  counterparty: z.optional(text),
  direction: z.optional(text),
  agent: z.optional(text),
});

export interface Delivery {
  eventId: string;
  event: string;
  account?: string | undefined;
  counterparty?: string | undefined;
  direction?: string | undefined;
  agent?: string | undefined;
  /** The body's own `timestamp`, whatever JSON value it is (undefined when absent). */
  timestamp: unknown;
  /** The whole document, to print as it came: plain JSON data, shallow enough to print. */
  document: Record<string, unknown>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The delivery in `body`, or why it is malformed (one line naming the field and the rule). */
export function parseDelivery(body: Uint8Array): { delivery: Delivery } | { malformed: string } {
  let json: string;
  try {
    json = utf8.decode(body);
  } catch {
    return { malformed: 'body is not valid UTF-8' };
  }
  if (nestingDepth(json) > MAX_DELIVERY_DEPTH) return { malformed: `body is nested deeper than ${MAX_DELIVERY_DEPTH} levels` };
  let doc: unknown;
  try {
    doc = JSON.parse(json) as unknown;
  } catch {
    return { malformed: 'body is not JSON (cut short, or not JSON at all)' };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { malformed: 'body is not a JSON object' };
  const parsed = z.safeParse(DeliveryFieldsSchema, doc);
  if (!parsed.success) {
    // Every field of the schema has the same rule, so the first one broken says it all.
    const field = String(parsed.error.issues[0]?.path[0] ?? 'body');
    return { malformed: Object.hasOwn(doc, field) ? `${field} must be a string of 1 to 1024 characters` : `${field} is missing` };
  }
  const f = parsed.data;
  const document = doc as Record<string, unknown>;
  return {
    delivery: {
      eventId: f.event_id,
      event: f.event,
      account: f.account,
      counterparty: f.counterparty,
      direction: f.direction,
      agent: f.agent,
      // JSON.parse makes `__proto__` an own key like any other: read own properties only.
      timestamp: Object.hasOwn(document, 'timestamp') ? document.timestamp : undefined,
      document,
    },
  };
}
