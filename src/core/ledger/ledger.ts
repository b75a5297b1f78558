// The ledger: on this machine, one append-only file per service (base URL) and account, in the
// config directory (0600 in 0700), recording what every payment, batch row and decision did at
// the service, one JSON line per event, written through the moment it is known (a kill loses at
// most the line being written, which is skipped when read). lines.ts is its vocabulary and
// fold.ts its merge rule; memory.ts measures its windows on both clocks. A run reads only the
// lines it needs (those of its key, or of its batch), searched as bytes, so a lookup costs the
// same with ten lines or a million. Payment lines older than 90 days on both clocks are dropped;
// batch and decision lines are kept. docs/idempotency.md, "The ledger".
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../../config/paths.js';
import { openJournalFile, type JournalFile } from '../../config/journal.js';
import type { BatchLine, DecisionLine, Line, RowLine, SendLine } from './lines.js';
import { parseLine } from './lines.js';
import { pastKeeping, type Now } from './memory.js';

export const LEDGER_FOLDER = 'ledger';

const DAY_MS = 86_400_000;
/** How long a payment's lines are kept: on this machine's clock and the service's both. */
export const KEEP_MS = 90 * DAY_MS;

export interface LedgerScope {
  baseUrl: string;
  accountId: string;
}

/** The clocks a run writes with: this machine's, and the service's once an answer told it. */
export interface LedgerClocks {
  now(): number;
  /** The service's now, or undefined while no answer of this run has told it. */
  serviceNow(): number | undefined;
}

/** Which lines a run reads: the texts one of them must hold (a key, a batch's name). */
export type Selection = readonly string[];

/** A line as a caller gives it: the time, the service's time and the attempt are added here. */
export type NewLine =
  | Omit<SendLine, 'at' | 'svc_at' | 'attempt'>
  | Omit<RowLine, 'at' | 'svc_at' | 'attempt'>
  | Omit<DecisionLine, 'at' | 'svc_at' | 'attempt'>
  | Omit<BatchLine, 'at' | 'svc_at'>;

/** The file's name: a hash of the service and the account. */
export function ledgerName(scope: LedgerScope): string {
  return createHash('sha256').update(`svc-ledger-v1\u0000${scope.baseUrl}\u0000${scope.accountId}`).digest('hex').slice(0, 32);
}

export class Ledger {
  /** This run's nonce: its `tried` lines and their results share it. */
  readonly attempt = randomBytes(8).toString('hex');
  private readonly read: Line[];

  private constructor(
    private readonly file: JournalFile<Line>,
    private readonly clocks: LedgerClocks,
    older: readonly Line[],
  ) {
    this.read = [...older, ...file.entries];
  }

  /**
   * The ledger of one service and account, with the lines holding one of `select`'s texts (a key
   * as JSON writes it, `"invoice-7"`; a batch's name), after `older` ones (an older svc's journals,
   * legacy.ts). Nothing is created until a line is written.
   */
  static open(env: NodeJS.ProcessEnv, scope: LedgerScope, clocks: LedgerClocks, select: Selection, older: readonly Line[] = []): Ledger {
    const file = openJournalFile<Line>(env, LEDGER_FOLDER, ledgerName(scope), { parse: parseLine, containing: select });
    return new Ledger(file, clocks, older);
  }

  /** As open(), to read only (a dry run): where there is no ledger yet, nothing is created. */
  static peek(env: NodeJS.ProcessEnv, scope: LedgerScope, clocks: LedgerClocks, select: Selection, older: readonly Line[] = []): Ledger {
    const path = join(configDir(env), LEDGER_FOLDER, `${ledgerName(scope)}.jsonl`);
    if (existsSync(path)) return Ledger.open(env, scope, clocks, select, older);
    const none: JournalFile<Line> = {
      path,
      entries: [],
      append: () => {
        throw new Error('a ledger opened to read was written to');
      },
      holdsTimeBefore: () => false,
      prune: () => {},
      close: () => {},
    };
    return new Ledger(none, clocks, older);
  }

  /** Every ledger file of this config directory: names to open with readAll(). */
  static files(env: NodeJS.ProcessEnv): string[] {
    const dir = join(configDir(env), LEDGER_FOLDER);
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length)) : [];
  }

  /** The lines of one ledger file that hold one of `select`'s texts, read only (`pending log`). */
  static readFile(env: NodeJS.ProcessEnv, name: string, select: Selection): readonly Line[] {
    const file = openJournalFile<Line>(env, LEDGER_FOLDER, name, { parse: parseLine, containing: select });
    file.close();
    return file.entries;
  }

  get path(): string {
    return this.file.path;
  }

  /** The lines read at open, and those this run wrote since, in order. */
  lines(): readonly Line[] {
    return this.read;
  }

  /** Appends a line, stamped with both clocks (and this run's attempt). */
  record(line: NewLine): Line {
    const svc = this.clocks.serviceNow();
    const stamped = {
      ...line,
      ...(line.op === 'batch' ? {} : { attempt: this.attempt }),
      at: new Date(this.clocks.now()).toISOString(),
      ...(svc !== undefined ? { svc_at: new Date(svc).toISOString() } : {}),
    } as Line;
    this.file.append(stamped);
    this.read.push(stamped);
    return stamped;
  }

  /**
   * Ends the run's use of the file. Payment lines past 90 days on both clocks are dropped now,
   * when this run knows the service's time (so one clock read wrong drops nothing).
   */
  close(): void {
    this.file.close();
    const service = this.clocks.serviceNow();
    if (service === undefined) return;
    const now: Now = { machine: this.clocks.now(), service };
    // Cheap first: a test of the bytes read at open on this machine's clock (pastKeeping asks both).
    if (!this.file.holdsTimeBefore(new Date(now.machine - KEEP_MS).toISOString(), new Date(now.machine).toISOString())) return;
    this.file.prune((l) => !(l.op === 'send' && pastKeeping(l, now, KEEP_MS)));
  }
}
