// The approvals log: a record, on the approver's machine, of every decision made through svc
// (`pending approve|reject` and `pending review`), one JSON object per line in
// `<config dir>/approvals/approvals.jsonl` (0600 in a 0700 folder; config/journal.ts). It says
// who decided what and when, never how much: ids, handles, the decision, its result, the reason
// given, the time by the tool's clock, the profile and the service; never an amount or a memo.
// What is recorded (docs/approvals.md): a decision the service accepted (`approved`, `rejected`)
// and one it refused for good (`expired`, `already_decided`: the approver's attempt is part of the
// record), and one whose answer was lost (`unknown`: it may have been applied). A decision that
// changed nothing and may be made again (402 insufficient balance, 404, a refusal before sending)
// is not recorded. Nothing is ever pruned.
import * as z from 'zod/mini';
import type { Needs } from '../../runtime/factory.js';
import { openJournalFile, type JournalFile } from '../../config/journal.js';
import { sanitize } from '../../io/sanitize.js';

export const APPROVALS_FOLDER = 'approvals';
const FILE_NAME = 'approvals';

export const RESULTS = ['approved', 'rejected', 'expired', 'already_decided', 'unknown'] as const;
export type DecisionResult = (typeof RESULTS)[number];

const text = z.string();
const EntrySchema = z.object({
  time: text,
  transaction_id: text,
  decision: z.enum(['approve', 'reject']),
  result: z.enum(RESULTS),
  agent: z.optional(text),
  to: z.optional(text),
  reason: z.optional(text),
  transfer_id: z.optional(text),
  /** The profile in use; absent when the key came from the environment alone. */
  profile: z.optional(text),
  base_url: text,
  /** Which command made it. */
  via: z.enum(['pending approve', 'pending reject', 'pending review']),
});
export type ApprovalEntry = z.infer<typeof EntrySchema>;

/** What a caller says about one decision; the time, profile and service are added here. */
export type DecisionFacts = Omit<ApprovalEntry, 'time' | 'profile' | 'base_url'>;

function parse(value: unknown): ApprovalEntry | undefined {
  const r = z.safeParse(EntrySchema, value);
  return r.success ? r.data : undefined;
}

/**
 * The base URL as recorded: scheme, host and path only. Credentials in it (`https://user:pass@…`)
 * or a query are not the service's name and never go to a file.
 */
export function recordedBaseUrl(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unreadable base URL)';
  }
}

/** Every entry on file, oldest first (a torn or foreign line is skipped). */
export function readApprovals(env: NodeJS.ProcessEnv): readonly ApprovalEntry[] {
  const file = openJournalFile(env, APPROVALS_FOLDER, FILE_NAME, { parse });
  file.close();
  return file.entries;
}

/** Appends decisions to the log; opened at the first one, so a run that decides nothing leaves no file. */
export interface ApprovalsLog {
  record(facts: DecisionFacts): void;
  close(): void;
}

/**
 * The log of this run (the profile and service are read once, here). Writing it never fails the
 * command: the decision was made on the service whatever happens here, so a log that cannot be
 * written is one warning line on stderr.
 */
export async function approvalsLog(ctx: Needs<'auth' | 'clock' | 'env' | 'io'>): Promise<ApprovalsLog> {
  const auth = await ctx.auth();
  const where = { ...(auth.profileName ? { profile: auth.profileName } : {}), base_url: recordedBaseUrl(auth.baseUrl) };
  let file: JournalFile<ApprovalEntry> | undefined;
  return {
    record(facts) {
      const entry: ApprovalEntry = { time: new Date(ctx.clock.now()).toISOString(), ...facts, ...where };
      try {
        file ??= openJournalFile(ctx.env, APPROVALS_FOLDER, FILE_NAME, { parse });
        file.append(entry);
      } catch (err) {
        ctx.io.err(`warning: this decision is not recorded in the approvals log on this machine: ${sanitize((err as Error).message)}\n`);
      }
    },
    close() {
      file?.close();
    },
  };
}
