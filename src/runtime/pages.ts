// Paging through a list the service answers a page at a time (`limit` / `offset` / `has_more`),
// one page ahead: the request for the next page is on the wire while the caller writes the
// current one, so the service's time and ours overlap. At most one request is in flight and at
// most two pages are held (the one being written and the one arriving), so memory does not
// depend on how long the list is (`transfer ls --all`, `pending ls --all`).
import { once } from 'node:events';
import { CliError } from '../errors.js';

export interface PageAnswer<T> {
  items: T[];
  /** The service's `has_more`, when it says. */
  hasMore?: boolean;
}

export interface PageSource<T> {
  /** Fetches the page that starts at `offset` (the API client: retries, --timeout, errors). */
  fetch(offset: number): Promise<PageAnswer<T>>;
  /** Page size asked for (undefined: the server's default); without has_more a short page ends the list. */
  limit?: number;
  /** Where the first page starts. */
  offset: number;
  /** Follow every page (`--all`), or stop after the first. */
  all: boolean;
  /**
   * Awaited after a page arrives and before the next request starts (e.g. the account lookup
   * that decryption needs on the first page): requests never overlap, as --timeout counts them.
   */
  prepare?(items: readonly T[]): Promise<void>;
}

export interface Page<T> {
  items: T[];
  /** Where this page started. */
  offset: number;
  /** Whether the service has more after it (has_more, or a full page when it does not say). */
  more: boolean | undefined;
}

/**
 * Yields each page; when more follow, the next request is already under way as the page is
 * yielded. The caller writes the page (waiting for stdout to drain) before asking for the next,
 * which is what bounds the read-ahead to one page. A failed request is thrown where the caller
 * asks for that page: after every earlier page has been written. `idOf` tells a service that
 * ignores the offset (the same first item twice) from a list that goes on.
 */
export async function* pagesAhead<T>(src: PageSource<T>, idOf: (item: T) => string): AsyncGenerator<Page<T>, void, undefined> {
  let offset = src.offset;
  let inFlight = src.fetch(offset);
  let previousFirst: string | undefined;
  for (let n = 0; ; n++) {
    const { items, hasMore } = await inFlight;
    const first = items[0] === undefined ? undefined : idOf(items[0]);
    if (n > 0 && first !== undefined && first === previousFirst) {
      throw new CliError('failure', 'invalid_response', 'the service ignored the page offset (it answered the same page twice); stopped to avoid looping');
    }
    previousFirst = first;
    const more = hasMore ?? (src.limit !== undefined ? items.length >= src.limit : undefined);
    const page: Page<T> = { items, offset, more };
    await src.prepare?.(items);
    const follow = src.all && items.length > 0 && more !== false;
    if (follow) {
      offset += items.length;
      inFlight = src.fetch(offset);
      // Settled later, when the caller asks for it; until then a failure must not count as
      // unhandled (it is reported in order, after this page).
      inFlight.catch(() => {});
    }
    yield page;
    if (!follow) return;
  }
}

/** Rows decrypted between two turns of the event loop (about a millisecond of X25519 work). */
export const ROWS_PER_TURN = 16;

/**
 * `items.map(fn)` for per-row work that is slow (decryption), giving the event loop a turn every
 * `every` rows. The next page's request is in flight meanwhile: its answer is taken as it
 * arrives, so the time counted against --timeout stays the network's, not our decryption's (the
 * client measures a request until its answer is handled).
 */
export async function mapInTurns<T, R>(items: readonly T[], fn: (item: T) => R, every = ROWS_PER_TURN): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % every === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    out.push(fn(items[i]!));
  }
  return out;
}

/** Waits until a stream can take more data, or has failed or closed (a slow reader bounds the read-ahead). */
export async function drainOrClose(stream: NodeJS.WritableStream & { destroyed?: boolean }): Promise<void> {
  if (stream.destroyed) return;
  const ac = new AbortController();
  await Promise.race([
    once(stream, 'drain', { signal: ac.signal }),
    once(stream, 'close', { signal: ac.signal }),
    once(stream, 'error', { signal: ac.signal }),
  ]).catch(() => {});
  ac.abort();
}
