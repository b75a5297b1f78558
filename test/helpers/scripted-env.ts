// A scripted service for one test, with svc pointed at it: a fresh config dir, an unknown test
// key and NO_COLOR; both closed and removed after each test of the file that made the factory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startScriptedServer, UNKNOWN_TEST_KEY, type Handler, type ScriptedServer } from './scripted-server.js';

export type ServeScripted = (handler: Handler) => Promise<{ server: ScriptedServer; env: Record<string, string> }>;

/** Call at a test file's top level: registers the clean-up and returns serve(handler). */
export function scriptedServices(prefix: string, extraEnv: Record<string, string> = {}): ServeScripted {
  const servers: ScriptedServer[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return async (handler) => {
    const server = await startScriptedServer(handler);
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return { server, env: { SVC_CONFIG_DIR: dir, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, ...extraEnv, NO_COLOR: '1' } };
  };
}
