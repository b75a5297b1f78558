// Everything a handler may touch, wired once per sandbox: clock, scheduler, state, chain.
import { SandboxClock } from './clock.js';
import { Chain } from './chain.js';
import type { Sealer } from './ledger.js';
import { Scheduler } from './scheduler.js';
import { seedWorld, type SeedResult } from './seed.js';
import { State } from './state.js';
import { CHAIN_ID } from './auth.js';
import { WebhookEngine, type WebhookEngineOptions } from './webhooks/engine.js';

export interface WorldOptions {
  blockTimeMs: number;
  approvalWindowMs: number;
  adminToken: string;
  sealer: Sealer;
  /** Called on every change that must reach the state file. */
  onChange?: () => void;
  /** Called with errors thrown by scheduled tasks or event listeners. */
  onError?: (err: unknown) => void;
  clock?: SandboxClock;
  /** Webhook engine settings (time limit, concurrency, jitter source, log). */
  webhooks?: Partial<WebhookEngineOptions>;
}

export class World {
  readonly chainId = CHAIN_ID;
  readonly clock: SandboxClock;
  readonly scheduler: Scheduler;
  readonly state: State;
  readonly chain: Chain;
  readonly sealer: Sealer;
  readonly adminToken: string;
  readonly blockTimeMs: number;
  readonly approvalWindowMs: number;
  /** Subscriptions, event fan-out and signed, retried deliveries (src/sandbox/webhooks/). */
  readonly webhooks: WebhookEngine;

  constructor(opts: WorldOptions) {
    const onError = opts.onError ?? (() => {});
    this.clock = opts.clock ?? new SandboxClock();
    this.scheduler = new Scheduler(this.clock, onError);
    this.state = new State(opts.onChange, onError);
    this.sealer = opts.sealer;
    this.adminToken = opts.adminToken;
    this.blockTimeMs = opts.blockTimeMs;
    this.approvalWindowMs = opts.approvalWindowMs;
    this.chain = new Chain(this.state, this.scheduler, this.sealer, opts.blockTimeMs);
    this.webhooks = new WebhookEngine({ state: this.state, scheduler: this.scheduler, clock: this.clock, sealer: this.sealer, onError }, opts.webhooks);
  }

  now(): number {
    return this.clock.now();
  }

  /** Forgets everything and seeds a fresh world with new keys. The clock keeps its offset. */
  reset(): SeedResult[] {
    this.scheduler.clear();
    const now = this.clock.now();
    this.state.clear(now);
    return seedWorld(this.state, now);
  }
}
