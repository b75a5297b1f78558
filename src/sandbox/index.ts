// createSandbox(): the local emulator on node's own http server, loopback only.
// `svc sandbox start` and the tests both call it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { $ZodError } from 'zod/v4/core';
import { isLoopbackHost } from '../domain/loopback.js';
import { isFetchBlockedPort } from '../domain/blocked-ports.js';
import { SandboxClock } from './clock.js';
import { SealError, Sealer } from './crypto/sealer.js';
import { DEFAULT_APPROVAL_WINDOW_MS, DEFAULT_BLOCK_TIME_MS, DEFAULT_HOST, DEFAULT_PORT } from './defaults.js';
import { SandboxStartError } from './errors.js';
import { sandboxRoutes } from './handlers/routes.js';
import { answerClientError, errorBody, sendJson } from './http/respond.js';
import { createRequestListener, type AnswerRecord } from './http/server.js';
import { newRequestId } from './ids.js';
import type { SeedResult } from './seed.js';
import { closeDatabase, openDatabase, openMemoryDatabase, type Db, type OpenOptions } from './store/db.js';
import { exportWorld } from './store/export.js';
import { keyPathFor, loadOrCreateKey, readKeyFile } from './store/key-file.js';
import { importLegacyState, isLegacyStateFile } from './store/legacy-json.js';
import type { SandboxHandle, SandboxOptions } from './types.js';
import { World } from './world.js';
import type { WebhookEngineOptions } from './webhooks/engine.js';

export type { SandboxHandle, SandboxOptions, SeededAccount } from './types.js';
export { SandboxStartError } from './errors.js';

export { DEFAULT_APPROVAL_WINDOW_MS, DEFAULT_BLOCK_TIME_MS, DEFAULT_HOST, DEFAULT_PORT } from './defaults.js';
/** Time a client has to send its request headers, and its whole request. */
export const SLOW_CLIENT_HEADERS_MS = 10_000;
export const SLOW_CLIENT_REQUEST_MS = 30_000;
/** Node checks the two limits above on this interval (its default, 30 s, would let a slow client stay 40 s). */
const SLOW_CLIENT_CHECK_MS = 2_000;


function checkOptions(opts: SandboxOptions) {
  const host = opts.host ?? DEFAULT_HOST;
  if (!isLoopbackHost(host)) {
    throw new SandboxStartError('invalid_option', `refusing to listen on ${host}: the sandbox serves loopback addresses only`, 'use 127.0.0.1, ::1 or localhost');
  }
  const port = opts.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SandboxStartError('invalid_option', `port must be a whole number from 0 to 65535 (got ${port})`, '0 picks a free port');
  }
  if (isFetchBlockedPort(port)) {
    throw new SandboxStartError('invalid_option', `port ${port} is one that fetch() clients (browsers, Node, most SDKs) refuse to connect to`, 'choose another port; 0 picks a free one');
  }
  const blockTimeMs = opts.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS;
  if (!Number.isSafeInteger(blockTimeMs) || blockTimeMs < 0) {
    throw new SandboxStartError('invalid_option', `block time must be a whole number of milliseconds, 0 or more (got ${blockTimeMs})`);
  }
  const approvalWindowMs = opts.approvalWindowMs ?? DEFAULT_APPROVAL_WINDOW_MS;
  if (!Number.isSafeInteger(approvalWindowMs) || approvalWindowMs <= 0) {
    throw new SandboxStartError('invalid_option', `approval window must be a positive whole number of milliseconds (got ${approvalWindowMs})`);
  }
  return { host: host.replace(/^\[|\]$/g, ''), port, blockTimeMs, approvalWindowMs };
}

export async function createSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  return (await openSandbox(opts)).handle;
}

/** Test seams, not part of SandboxOptions. */
export interface SandboxInternals {
  /** The real-time source under the sandbox clock (tests freeze it). Default Date.now. */
  realNow?: () => number;
  /** Webhook engine settings: a shorter attempt time limit, a fixed jitter source, a fake sender. */
  webhooks?: Partial<WebhookEngineOptions>;
  /** How often reads' leftovers (key-use counts, ciphertexts) are written. Default 1 s. */
  flushEveryMs?: number;
  /** Slow-client limits (tests shorten them): headers, whole request, and how often node checks. */
  slowClient?: { headersMs: number; requestMs: number; checkEveryMs: number };
  /** Sees every answer the request pipeline writes (the OpenAPI conformance test records them). */
  onAnswer?: (answer: AnswerRecord) => void;
  /** How long a write waits for a write lock another program holds (store/db.ts BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

/** The database and the sealing key of a sandbox: in memory, or a file (importing an earlier JSON state once). */
function openState(statePath: string | undefined, legacyPath: string | undefined, opts: OpenOptions): { db: Db; key: Buffer } {
  if (statePath === undefined) return { db: openMemoryDatabase(), key: randomBytes(32) };
  const legacy = legacyPath ?? statePath;
  if ((statePath === legacy || !existsSync(statePath)) && isLegacyStateFile(legacy)) {
    const db = importLegacyState(legacy, statePath);
    return { db, key: readKeyFile(keyPathFor(statePath)) };
  }
  const key = loadOrCreateKey(statePath);
  return { db: openDatabase(statePath, opts), key };
}

/** createSandbox() plus the World behind it (tests inspect balances through it). */
export async function openSandbox(opts: SandboxOptions = {}, internals: SandboxInternals = {}): Promise<{ handle: SandboxHandle; world: World }> {
  const { host, port, blockTimeMs, approvalWindowMs } = checkOptions(opts);
  const log = opts.log;
  const statePath = opts.ephemeral ? undefined : opts.statePath;
  // Errors of the sandbox's own work (a settlement, a delivery, a rollback) have no request to
  // answer: they go to the log, or to stderr when the embedder gave none; never nowhere.
  const onError = (err: unknown) => {
    const line = `error: ${(err as Error)?.message ?? String(err)}`;
    if (log) log(line);
    else process.stderr.write(`svc sandbox: ${line}\n`);
  };

  const { db, key } = openState(statePath, opts.ephemeral ? undefined : opts.legacyStatePath, internals.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: internals.busyTimeoutMs });
  const world = new World({
    db,
    blockTimeMs,
    approvalWindowMs,
    adminToken: `sbx_admin_${randomBytes(24).toString('base64url')}`,
    instance: randomBytes(16).toString('hex'),
    sealer: new Sealer(key),
    onError,
    clock: new SandboxClock(internals.realNow),
    webhooks: { ...(log ? { log } : {}), ...internals.webhooks },
  });

  let seeded: SeedResult[];
  try {
    seeded = world.load();
  } catch (err) {
    closeDatabase(db);
    if (err instanceof SealError) {
      throw new SandboxStartError('state_unreadable', `${statePath}: a sealed value does not open with its key file ${keyPathFor(statePath ?? '')} (${err.message})`, 'the key file must be the one created with this state');
    }
    if (err instanceof $ZodError) {
      throw new SandboxStartError('state_unreadable', `${statePath}: a stored record is not what this svc expects (${err.issues[0]?.path.join('.')}: ${err.issues[0]?.message})`, 'move the file away to start a fresh sandbox, or use --ephemeral');
    }
    throw err;
  }

  const routes = sandboxRoutes();

  const server = createServer(
    {
      keepAliveTimeout: 5_000,
      // The pipeline checks Host itself (a loopback name, or the JSON error envelope).
      requireHostHeader: false,
      // A client that sends its headers or its request slowly is cut off (one byte a second never finishes).
      headersTimeout: internals.slowClient?.headersMs ?? SLOW_CLIENT_HEADERS_MS,
      requestTimeout: internals.slowClient?.requestMs ?? SLOW_CLIENT_REQUEST_MS,
      connectionsCheckingInterval: internals.slowClient?.checkEveryMs ?? SLOW_CLIENT_CHECK_MS,
    },
    createRequestListener(world, routes, { ...(log ? { log } : {}), logRequests: opts.logRequests ?? true, ...(internals.onAnswer ? { onAnswer: internals.onAnswer } : {}) }),
  );
  // What node's parser refuses still gets the JSON error envelope (docs/sandbox.md).
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, newRequestId()));
  server.on('checkExpectation', (_req, res) => {
    const requestId = newRequestId();
    sendJson(res, 417, JSON.stringify(errorBody('expectation_failed', 'only "Expect: 100-continue" is supported', requestId)), requestId);
  });
  try {
    await listen(server, port, host);
  } catch (err) {
    world.close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || isIP(host) === 6 ? `[${address.address}]` : host === 'localhost' ? 'localhost' : address.address;
  const url = `http://${urlHost}:${address.port}`;

  // Work of a restored state that became due while the sandbox was down runs now.
  await world.scheduler.runDue();
  world.startFlushing(internals.flushEveryMs);

  let closing: Promise<void> | undefined;
  let unsaved: readonly string[] = [];
  const handle: SandboxHandle = {
    url,
    port: address.port,
    adminToken: world.adminToken,
    instance: world.instance,
    seeded: seeded.map(({ handle, type, kyc_status, public_key, confidential_ready, apiKey, decryptionKey }) => ({
      handle,
      type,
      kyc_status,
      public_key,
      confidential_ready,
      ...(apiKey ? { apiKey } : {}),
      ...(decryptionKey ? { decryptionKey } : {}),
    })),
    restored: seeded.length === 0,
    async advance(ms: number) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('advance(ms) takes a whole number of milliseconds, 0 or more');
      await world.scheduler.advance(ms);
      world.saveClock();
      await world.store.committed(); // what became due (settlements) is on disk too
    },
    now: () => new Date(world.now()),
    webhooksIdle: () => world.webhooks.idle(),
    export: () => exportWorld(world),
    close() {
      closing ??= (async () => {
        world.scheduler.stop();
        await world.webhooks.close(); // in-flight attempts are aborted and stay queued
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Give in-flight requests a moment, then cut what is left.
          setTimeout(() => server.closeAllConnections(), 1_000).unref();
        });
        unsaved = world.close();
      })();
      return closing;
    },
    unsaved: () => unsaved,
  };
  return { handle, world };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE') {
        reject(new SandboxStartError('address_in_use', `${host}:${port} is already in use (is another sandbox running?)`, 'stop it, or pick another port with --port (0 picks a free one)'));
      } else {
        reject(new SandboxStartError('listen_failed', `cannot listen on ${host}:${port}: ${err.message}`));
      }
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
