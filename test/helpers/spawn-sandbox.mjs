// Starting `svc sandbox start ...` in a child process and waiting until it listens: one copy,
// shared by the tests (through run.ts) and the benchmarks (bench/lib.mjs), so plain JavaScript.
import { spawn } from 'node:child_process';

const LISTENING = /^svc sandbox listening on (http:\/\/\S+)$/m;

/**
 * Spawns `node <bin> ...argv` with exactly `env` and resolves once the sandbox prints its URL;
 * rejects (with what it wrote) if it exits first.
 * @param {string} bin
 * @param {string[]} argv
 * @param {Record<string, string>} env
 * @param {{ echoStderr?: boolean, node?: string | null, nodeArgs?: string[] }} [opts] node: the Node to
 *   run bin with (default this one); null runs bin itself, as a user's shell would (an installed
 *   `svc`). nodeArgs: flags for that Node (a benchmark's --cpu-prof).
 */
export async function spawnSandboxProcess(bin, argv, env, opts = {}) {
  const node = opts.node === undefined ? process.execPath : opts.node;
  const child = node === null ? spawn(bin, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(node, [...(opts.nodeArgs ?? []), bin, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      if (opts.echoStderr) process.stderr.write(d);
      const m = LISTENING.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    /** Sends a signal (unless it already exited) and resolves with the exit code. */
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
