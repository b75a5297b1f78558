// --events of `create` and `listen`: a list of event types, or "all".
import { parseEventList } from '../../domain/events.js';
import { UsageError } from '../../errors.js';

export function eventsFrom(values: readonly string[]): string[] {
  const parsed = parseEventList(values);
  if (!parsed.ok) throw new UsageError(`--events: unknown event type "${parsed.unknown}"`, 'see `svc webhook create --help` for the seven types');
  if (parsed.events.length === 0) throw new UsageError('--events must name at least one event type');
  return parsed.events;
}
