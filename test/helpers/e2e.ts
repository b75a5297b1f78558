// End-to-end harness: an in-process sandbox on an ephemeral loopback port, a private config
// directory, and svc() which runs main(argv) in this process with that environment (stdout,
// stderr and the exit code as a script would see them). runSvc() spawns the real binary.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileStore } from '../../src/config/profiles.js';
import { createSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/types.js';
import { runCli } from './cli.js';
import type { RunOptions, RunResult } from './run.js';

export { BIN, ROOT, runSvc, spawnSandbox, type RunOptions, type RunResult, type SpawnedSandbox } from './run.js';

export interface TestSandbox {
  sandbox: SandboxHandle;
  url: string;
  configDir: string;
  /** Environment that points svc at this sandbox's private config dir. */
  env: Record<string, string>;
  /** API key of a seeded account, by handle (e.g. "@alice"). */
  keyOf(handle: string): string;
  svc(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** svc for a step a test stands on: throws with stderr unless it ends 0 (or 8: held for approval). */
  svcOk(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** svc with --json, parsed; throws with stderr when the exit code is not 0. */
  svcJson<T = unknown>(args: string[], opts?: RunOptions): Promise<T>;
  close(): Promise<void>;
}

/**
 * Starts an ephemeral sandbox (nothing settles until the test advances the clock, unless a
 * block time is given) and writes a `sandbox` profile for @alice into a fresh config dir.
 */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const sandbox = await createSandbox({ port: 0, ephemeral: true, blockTimeMs: 60_000, ...options });
  const keys = new Map(sandbox.seeded.filter((a) => a.apiKey).map((a) => [a.handle, a.apiKey!]));
  const store = new ProfileStore(configDir);
  const alice = sandbox.seeded.find((a) => a.handle === '@alice');
  await store.set('sandbox', {
    apiKey: keys.get('@alice')!,
    baseUrl: sandbox.url,
    sandboxAdminToken: sandbox.adminToken,
    ...(alice?.decryptionKey ? { decryptionKey: alice.decryptionKey } : {}),
  }, { makeCurrent: true });
  const env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
  const svc = (args: string[], opts: RunOptions = {}) => runCli(args, { env: { ...env, ...opts.env }, ...(opts.input !== undefined ? { input: opts.input } : {}) });
  return {
    sandbox,
    url: sandbox.url,
    configDir,
    env,
    keyOf(handle) {
      const k = keys.get(handle);
      if (!k) throw new Error(`no seeded key for ${handle}`);
      return k;
    },
    svc,
    async svcOk(args: string[], opts?: RunOptions) {
      const r = await svc(args, opts);
      if (r.code !== 0 && r.code !== 8) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r;
    },
    async svcJson<T>(args: string[], opts?: RunOptions): Promise<T> {
      const r = await svc(['--json', ...args], opts);
      if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    },
    async close() {
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
