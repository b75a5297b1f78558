// Racing work against an AbortSignal: a stalled proxy or a wait the user ends must not hold a
// command past its deadline, whatever the work itself does with its own abort.

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts (whichever comes first). */
export function unlessAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
