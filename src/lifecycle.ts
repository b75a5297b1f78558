// Things to release when a command is done (e.g. keep-alive sockets), so the process exits at
// once instead of waiting for idle connections to time out.
const closers: Array<() => Promise<unknown>> = [];

export function onShutdown(close: () => Promise<unknown>): void {
  closers.push(close);
}

export async function shutdown(): Promise<void> {
  await Promise.allSettled(closers.splice(0).map((c) => c()));
}
