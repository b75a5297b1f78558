// A transfer id from the command line, and its path in the API.
import { UsageError } from '../../errors.js';
import { refuseShortenedId } from '../../domain/pasted-id.js';

export function transferPath(id: string): string {
  return `/v1/transfers/${encodeURIComponent(id)}`;
}

/** Checks a transfer id given on the command line (the server decides whether it exists). */
export function checkTransferId(id: string): string {
  const trimmed = id.trim();
  refuseShortenedId('transfer id', trimmed, 'svc transfer ls');
  if (!trimmed || trimmed.length > 200 || /[\s/?#]/.test(trimmed)) {
    throw new UsageError(`transfer id "${id}" is invalid: it must be a single word such as tr_1a2b3c`);
  }
  return trimmed;
}
