// A hostile client: it sends a request one byte per tick and never finishes on its own, the way
// a slowloris attack holds a server's connections. It reports what the server did about it.
import { connect } from 'node:net';

export interface SlowClientResult {
  /** What the server sent back before closing (empty if it closed without a word). */
  answer: string;
  /** Bytes we had sent when the server ended the connection. */
  bytesSent: number;
}

/**
 * Connects to `url`, sends `head` (may be empty) at once, then one byte of `trickle` each `tickMs`,
 * looping over it, until the server closes the connection. Gives up (rejects) after `maxTicks`.
 */
export function slowClient(url: string, head: string, trickle: string, { tickMs, maxTicks }: { tickMs: number; maxTicks: number }): Promise<SlowClientResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sent = 0;
    let ticks = 0;
    let next = 0;
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const timer = setInterval(() => {
      if (++ticks > maxTicks) {
        clearInterval(timer);
        socket.destroy();
        return reject(new Error(`the server still held the connection after ${maxTicks} ticks`));
      }
      if (!socket.writable) return;
      socket.write(trickle[next++ % trickle.length]!);
      sent += 1;
    }, tickMs);
    socket.on('connect', () => {
      socket.write(head);
      sent += head.length;
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {}); // a reset after the server's answer: keep what came
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer: Buffer.concat(chunks).toString('utf8'), bytesSent: sent });
    });
  });
}
