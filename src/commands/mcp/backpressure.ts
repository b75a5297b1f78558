// `svc mcp` reads requests only while it can write their answers. An MCP host that sends calls
// and does not read what comes back (stuck, or hostile) would otherwise have every answer queued
// in memory: 30,000 `tools/list` calls took the process past a gigabyte. Stdin is paused while
// stdout is full (past its high-water mark) or while too many calls wait for their answer, and
// resumed when both have cleared; a paused pipe fills, and the host's own writes wait.
import type { Readable, Writable } from 'node:stream';

/** Calls whose answers may be outstanding at once before stdin is paused. */
export const MAX_IN_FLIGHT = 16;

/** The part of the SDK's stdio transport this touches: the message hook and send. */
interface Transport<M, E, O> {
  onmessage?: ((message: M, extra?: E) => void) | undefined;
  send(message: M, options?: O): Promise<void>;
}

const isRequest = (m: object) => 'method' in m && 'id' in m;
const isAnswer = (m: object) => 'id' in m && ('result' in m || 'error' in m);

/** Wraps a connected transport (server.connect() has set its onmessage) so its stdin follows stdout. */
export function readWhileWritable<M extends object, E, O>(transport: Transport<M, E, O>, stdin: Readable, stdout: Writable, maxInFlight = MAX_IN_FLIGHT): void {
  let inFlight = 0;
  let paused = false;
  const check = () => {
    const full = stdout.writableNeedDrain || inFlight >= maxInFlight;
    if (full && !paused) {
      paused = true;
      stdin.pause();
    } else if (!full && paused) {
      paused = false;
      stdin.resume();
    }
  };
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isRequest(message)) inFlight++;
    check();
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const written = send(message, options);
    if (isAnswer(message)) inFlight--;
    check();
    await written;
    check();
  };
  stdout.on('drain', check);
  // While stdout is full, the SDK's transport waits for 'drain' once per message it could not
  // write: up to maxInFlight answers and a progress notification of each (each waits for the one
  // before), plus this listener. Node would warn of a leak past 10 on the host's stderr log.
  stdout.setMaxListeners(Math.max(stdout.getMaxListeners(), 2 * maxInFlight + 1));
}
