// A tool's arguments, as the model sent them, checked before anything is sent: an object with
// known fields only, each of the type and within the bounds its JSON schema says. A failure is a
// UsageError naming the field and the rule (a tool error for the model; the server goes on).
import { UsageError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';

export type Args = Readonly<Record<string, unknown>>;

/** The arguments object: absent is empty; anything else than an object, or an unknown field, is refused. */
export function argsOf(value: unknown, fields: readonly string[]): Args {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new UsageError('arguments must be an object', undefined, 'invalid_arguments');
  for (const name of Object.keys(value)) {
    if (!fields.includes(name)) {
      throw new UsageError(`unknown field "${sanitize(name.slice(0, 64))}" (this tool takes ${fields.join(', ') || 'no arguments'})`, undefined, 'invalid_arguments');
    }
  }
  return value as Args;
}

export function requiredText(args: Args, field: string): string {
  const v = optionalText(args, field);
  if (v === undefined) throw new UsageError(`${field} is required`, undefined, 'invalid_arguments');
  return v;
}

export function optionalText(args: Args, field: string): string | undefined {
  const v = args[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') {
    const extra = field === 'amount' && typeof v === 'number' ? ' (a decimal string such as "12.50", never a number)' : '';
    throw new UsageError(`${field} must be a string${extra}`, undefined, 'invalid_arguments');
  }
  return v;
}

/** A whole number within [min, max], or the default when absent. */
export function integer(args: Args, field: string, min: number, max: number, fallback: number): number {
  const v = args[field];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new UsageError(`${field} must be a whole number from ${min} to ${max}`, undefined, 'invalid_arguments');
  }
  return v;
}

/**
 * The CLI's own checks name flags (`--memo must …`); a tool's caller knows fields. The message of
 * a UsageError from a shared check, with each flag named as its field.
 */
export function asFieldError(err: unknown, fields: Readonly<Record<string, string>>): unknown {
  if (!(err instanceof UsageError)) return err;
  let message = err.message;
  for (const [flag, field] of Object.entries(fields)) message = message.split(flag).join(field);
  return message === err.message ? err : err.with({ message });
}
