// createSandbox(): the local emulator on node's own http server, loopback only.
// `svc sandbox start` and the tests both call it.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { SandboxClock } from './clock.js';
import { SandboxStartError } from './errors.js';
import { registerAccountRoutes } from './handlers/accounts.js';
import { registerAgentRoutes } from './handlers/agents.js';
import { registerControlRoutes } from './handlers/control.js';
import { registerTransferRoutes } from './handlers/transfers.js';
import { registerWebhookRoutes } from './handlers/webhooks.js';
import { Routes } from './http/context.js';
import { createRequestListener } from './http/server.js';
import { SealError, Sealer } from './ledger.js';
import { loadOrCreateKey, Persister, readSnapshot, restoreState, serializeState } from './persist.js';
import type { SandboxHandle, SandboxOptions, SeededAccount } from './types.js';
import { World } from './world.js';
import type { WebhookEngineOptions } from './webhooks/engine.js';

export type { SandboxHandle, SandboxOptions, SeededAccount } from './types.js';
export { SandboxStartError } from './errors.js';

export const DEFAULT_PORT = 46630;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_BLOCK_TIME_MS = 1500;
export const DEFAULT_APPROVAL_WINDOW_MS = 15 * 60 * 1000;

/** 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

function checkOptions(opts: SandboxOptions) {
  const host = opts.host ?? DEFAULT_HOST;
  if (!isLoopback(host)) {
    throw new SandboxStartError('invalid_option', `refusing to listen on ${host}: the sandbox serves loopback addresses only`, 'use 127.0.0.1, ::1 or localhost');
  }
  const port = opts.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SandboxStartError('invalid_option', `port must be a whole number from 0 to 65535 (got ${port})`, '0 picks a free port');
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
}

/** createSandbox() plus the World behind it (tests inspect balances through it). */
export async function openSandbox(opts: SandboxOptions = {}, internals: SandboxInternals = {}): Promise<{ handle: SandboxHandle; world: World }> {
  const { host, port, blockTimeMs, approvalWindowMs } = checkOptions(opts);
  const log = opts.log;
  const statePath = opts.ephemeral ? undefined : opts.statePath;
  const onError = (err: unknown) => log?.(`error: ${(err as Error)?.message ?? String(err)}`);

  // The sealing key: from `<state>.key`, or a fresh one for an ephemeral sandbox.
  const sealer = new Sealer(statePath ? loadOrCreateKey(statePath) : randomBytes(32));
  const snapshot = statePath ? readSnapshot(statePath) : undefined;

  let persister: Persister | undefined;
  const world = new World({
    blockTimeMs,
    approvalWindowMs,
    adminToken: `sbx_admin_${randomBytes(24).toString('base64url')}`,
    sealer,
    onChange: () => persister?.markDirty(),
    onError,
    clock: new SandboxClock(internals.realNow),
    webhooks: { ...(log ? { log } : {}), ...internals.webhooks },
  });

  let seeded: SeededAccount[] = [];
  if (snapshot && statePath) {
    restoreState(snapshot, world.state, world.clock, sealer, statePath);
    world.chain.resume();
    try {
      world.webhooks.restore(snapshot.webhooks);
    } catch (err) {
      if (err instanceof SealError) {
        throw new SandboxStartError('state_unreadable', `state file ${statePath}: a webhook signing secret does not open with its key file (${err.message})`, 'the key file must be the one created with this state file');
      }
      throw err;
    }
  } else {
    seeded = world.reset();
  }
  if (statePath) {
    persister = new Persister(statePath, () => serializeState(world.state, world.clock, sealer, world.chainId, world.webhooks.snapshot()), { onError });
  }

  const routes = new Routes();
  registerAccountRoutes(routes);
  registerTransferRoutes(routes);
  registerAgentRoutes(routes);
  registerWebhookRoutes(routes);
  registerControlRoutes(routes);

  const server = createServer({ keepAliveTimeout: 5_000 }, createRequestListener(world, routes, log ? { log } : {}));
  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || isIP(host) === 6 ? `[${address.address}]` : host === 'localhost' ? 'localhost' : address.address;
  const url = `http://${urlHost}:${address.port}`;

  // A first seed is on disk before anyone can use its keys (not before: a failed listen
  // must not leave a world whose keys were never shown).
  if (persister && !snapshot) {
    persister.markDirty();
    await persister.flush();
  }

  // Transfers of a restored state that became due while the sandbox was down settle now.
  await world.scheduler.runDue();

  let closing: Promise<void> | undefined;
  const handle: SandboxHandle = {
    url,
    port: address.port,
    adminToken: world.adminToken,
    seeded: seeded.map(({ handle, type, kyc_status, public_key, confidential_ready, apiKey, decryptionKey }) => ({
      handle,
      type,
      kyc_status,
      public_key,
      confidential_ready,
      ...(apiKey ? { apiKey } : {}),
      ...(decryptionKey ? { decryptionKey } : {}),
    })),
    restored: Boolean(snapshot),
    async advance(ms: number) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('advance(ms) takes a whole number of milliseconds, 0 or more');
      await world.scheduler.advance(ms);
      world.state.touch();
    },
    now: () => new Date(world.now()),
    webhooksIdle: () => world.webhooks.idle(),
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
        await persister?.flush();
      })();
      return closing;
    },
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
