// What a running `svc sandbox start` leaves in the config dir so `svc sandbox stop` can find it:
// <config dir>/sandbox/running/<pid>.json (0600) with its pid, URL, profile and state file, removed when it
// stops. A record whose process is gone (killed, crashed) is stale and is removed when read.
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from './paths.js';
import { processAlive } from './pid.js';

export interface RunningSandbox {
  pid: number;
  url: string;
  profile: string;
  ephemeral: boolean;
  /** The start's nonce, as /_sandbox/health answers it (absent in a record of an older svc). */
  instance?: string;
  /** Its state file, absolute (absent: --ephemeral, or a record of an older svc). */
  state?: string;
}

function runningDir(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'sandbox', 'running');
}


/** Records this process as a running sandbox; returns a function that removes the record. */
export function recordRunning(env: NodeJS.ProcessEnv, sandbox: Omit<RunningSandbox, 'pid'>): () => void {
  const dir = runningDir(env);
  ensurePrivateDir(configDir(env));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${process.pid}.json`);
  writeFileSync(file, `${JSON.stringify({ pid: process.pid, ...sandbox })}\n`, { mode: 0o600 });
  return () => {
    try {
      unlinkSync(file);
    } catch {
      // already gone: nothing to undo
    }
  };
}

function parseRecord(text: string, pid: number): RunningSandbox | undefined {
  try {
    const data = JSON.parse(text) as Partial<RunningSandbox>;
    if (data.pid !== pid || typeof data.url !== 'string' || typeof data.profile !== 'string') return undefined;
    return {
      pid, url: data.url, profile: data.profile, ephemeral: data.ephemeral === true,
      ...(typeof data.instance === 'string' ? { instance: data.instance } : {}),
      ...(typeof data.state === 'string' ? { state: data.state } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The sandboxes of this config dir whose process is alive; stale records are removed. */
export function listRunning(env: NodeJS.ProcessEnv): RunningSandbox[] {
  const dir = runningDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: RunningSandbox[] = [];
  for (const name of names) {
    const m = /^(\d+)\.json$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    let record: RunningSandbox | undefined;
    try {
      record = parseRecord(readFileSync(join(dir, name), 'utf8'), pid);
    } catch {
      continue;
    }
    if (record && processAlive(pid)) found.push(record);
    else {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // removed meanwhile
      }
    }
  }
  return found.sort((a, b) => a.pid - b.pid);
}
