// Connections being opened, and the requests waiting for them. undici calls a connector with a
// host and port only: the request that asked for the connection, and its deadline, do not reach
// it. Neither does undici's abort (a request waiting for its connection stays queued until the
// connection opens or fails) nor its destroy() (it closes open sockets, not half-open ones). So
// a proxy silent after CONNECT, or a TLS handshake that never ends, held a socket, and the
// process, long after --timeout had ended the command.
//
// Here each pooled dispatcher counts the requests waiting on it (httpRequest registers each,
// with its abort signal). When the last one gives up (its deadline, Ctrl-C) or the command shuts
// down, every connection still being opened is cancelled, whatever its phase: DNS, TCP, the
// proxy's CONNECT, TLS. A connection nobody waits for is not worth finishing.

export class Openings {
  private waiting = 0;
  private readonly cancels = new Set<(reason: Error) => void>();

  /** A request waits until the returned function is called or `signal` aborts, whichever is first. */
  wait(signal: AbortSignal | undefined): () => void {
    this.waiting++;
    let gone = false;
    const leave = () => {
      if (gone) return;
      gone = true;
      signal?.removeEventListener('abort', leave);
      // The error is made only when a connection is being opened: a request that ends normally
      // (every page of a long list) does not pay for an Error and its stack trace.
      if (--this.waiting === 0 && this.cancels.size > 0) this.cancelAll(givenUp('no request waits for this connection any more'));
    };
    if (signal?.aborted) leave();
    else signal?.addEventListener('abort', leave, { once: true });
    return leave;
  }

  /** A connection being opened, given up by calling `cancel`. Returns `done`: call it once the connection is open or failed. */
  open(cancel: (reason: Error) => void): () => void {
    this.cancels.add(cancel);
    return () => void this.cancels.delete(cancel);
  }

  /** Cancels every connection being opened (at shutdown, or when nobody waits). */
  cancelAll(reason: Error): void {
    const all = [...this.cancels];
    this.cancels.clear();
    for (const cancel of all) cancel(reason);
  }
}

/** The error a cancelled connection fails with (UND_ERR_ABORTED: undici fails the queued requests and does not reconnect). */
export function givenUp(why: string): Error {
  return Object.assign(new Error(`connection given up: ${why}`), { code: 'UND_ERR_ABORTED' });
}

const byDispatcher = new WeakMap<object, Openings>();

/** Ties `openings` to the dispatcher whose connector reports to it. */
export function attachOpenings(dispatcher: object, openings: Openings): void {
  byDispatcher.set(dispatcher, openings);
}

/** Registers a request as waiting on `dispatcher` (a no-op for one without openings). */
export function waitOn(dispatcher: object, signal: AbortSignal | undefined): () => void {
  return byDispatcher.get(dispatcher)?.wait(signal) ?? (() => {});
}
