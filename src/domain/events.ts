// The seven event types of the spec, shared by the sandbox's webhook engine and the tool.

export const EVENT_TYPES = [
  'transfer.initiated',
  'transfer.confirmed',
  'transfer.failed',
  'agent.transaction.pending_approval',
  'agent.transaction.approved',
  'agent.transaction.rejected',
  'agent.policy.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(s: string): s is EventType {
  return (EVENT_TYPES as readonly string[]).includes(s);
}

/** Parses "a,b,c" (or repeated flags) into event types; returns the first unknown one on failure. */
export function parseEventList(values: readonly string[]): { ok: true; events: EventType[] } | { ok: false; unknown: string } {
  const out: EventType[] = [];
  for (const v of values.flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean)) {
    if (v === '*' || v === 'all') {
      out.push(...EVENT_TYPES);
      continue;
    }
    if (!isEventType(v)) return { ok: false, unknown: v };
    out.push(v);
  }
  return { ok: true, events: [...new Set(out)] };
}

/** Signature freshness: bodies carry `timestamp`; a receiver rejects ones too far from now. */
/**
 * The same event types, whatever their order: what "the same subscription" means when it is
 * created again (the sandbox) or taken over by the next `webhook listen`.
 */
export function sameEventTypes(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((e) => set.has(e));
}

export const DEFAULT_TOLERANCE_MS = 5 * 60_000;
