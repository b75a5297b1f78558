// The subscription `svc webhook listen` keeps between runs: one per profile (or, for a key no
// profile holds, per key) and forward URL, so its signing secret stays the same from one run to
// the next, as `stripe listen`'s does. The service shows a secret only once, in the create
// answer, so it is kept here: `<config dir>/webhook-listen/<name>.json`, 0600 in a 0700 folder
// (the place of the other machine-local secrets: local-key.ts), written whole and renamed into
// place. A run holds `<name>.lock` (config-lock.ts: "<pid> <host>"; a dead pid's lock is taken
// over) while it listens: two runs never share one subscription.
import { createHash } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describeLockHolder, tryLock } from './config-lock.js';
import { configDir, ensurePrivateDir } from './paths.js';
import { readPrivateFile, writePrivateTemp } from './private-file.js';
import { checkPrivatePath } from './safe-path.js';

export const LISTEN_FOLDER = 'webhook-listen';

/** What is kept of a listen's subscription (no amount, no API key). */
export interface KeptSubscription {
  webhook_id: string;
  /** The signing secret, as the create answer gave it. */
  secret: string;
  /** The listener URL it delivers to (`http://127.0.0.1:PORT/`). */
  url: string;
  events: string[];
  /** For a person reading the file: whose and for what. */
  profile?: string;
  base_url: string;
  forward_to?: string;
}

/** Whose kept subscription: a profile, or the key itself when no profile holds it. */
export interface ListenOwner {
  profile: string | null;
  apiKey: string;
  baseUrl: string;
  forwardTo: string | undefined;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The file name of an owner's slot: a hash, so neither a profile name nor a URL becomes a path. */
export function slotName(owner: ListenOwner): string {
  const who = owner.profile !== null ? `profile\n${owner.profile}` : `key\n${sha256(owner.apiKey)}`;
  return sha256(`${who}\n${owner.baseUrl}\n${owner.forwardTo ?? ''}`).slice(0, 32);
}

/** A slot this run holds: the kept record (if any), and how to change it and let it go. */
export interface KeptSlot {
  readonly record: KeptSubscription | undefined;
  save(record: KeptSubscription): void;
  release(): void;
}

/**
 * Claims the owner's slot: the slot, or who holds it now (` (process 123)`, or '' when unknown).
 * The lock is held until release(); every way out of listen releases it.
 */
export function claimSlot(env: NodeJS.ProcessEnv, owner: ListenOwner): KeptSlot | { heldBy: string } {
  const root = configDir(env);
  const dir = join(root, LISTEN_FOLDER);
  checkPrivatePath(root, 'config directory');
  checkPrivatePath(dir, 'config directory');
  ensurePrivateDir(dir);
  const name = slotName(owner);
  const path = join(dir, `${name}.json`);
  const lock = join(dir, `${name}.lock`);
  checkPrivatePath(path, 'config file');
  const release = tryLock(lock);
  if (!release) return { heldBy: describeLockHolder(lock) };
  let released = false;
  try {
    return {
      record: readRecord(path),
      save: (record) => writeRecord(dir, path, record),
      release: () => {
        if (!released) release();
        released = true;
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The record on file; undefined when there is none or it is not one svc wrote (a new subscription replaces it). */
function readRecord(path: string): KeptSubscription | undefined {
  const text = readPrivateFile(path);
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const d = (data ?? {}) as Record<string, unknown>;
  if (!isText(d.webhook_id) || !isText(d.secret) || !isText(d.url) || !isText(d.base_url)) return undefined;
  if (!Array.isArray(d.events) || !d.events.every(isText)) return undefined;
  return {
    webhook_id: d.webhook_id, secret: d.secret, url: d.url, events: d.events, base_url: d.base_url,
    ...(isText(d.profile) ? { profile: d.profile } : {}),
    ...(isText(d.forward_to) ? { forward_to: d.forward_to } : {}),
  };
}

/** Written whole under a name of its own (0600, never through a link), then renamed over the old one. */
function writeRecord(dir: string, path: string, record: KeptSubscription): void {
  const temp = writePrivateTemp(dir, '', `${JSON.stringify(record, null, 2)}\n`);
  try {
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
