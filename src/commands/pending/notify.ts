// `pending review --notify-command CMD`: the approver's own command, run once for each newly held
// transaction so they can be told where they are (a desktop notifier, a chat). CMD is the user's
// command line, so it runs through `sh -c`; what it is told goes only in its environment
// (SVC_TRANSACTION_ID, SVC_AGENT, SVC_TO, SVC_EXPIRES_AT, and the quorum: SVC_APPROVALS,
// SVC_APPROVALS_REQUIRED, SVC_APPROVED_BY; never an amount or a memo), never into
// the command string, so nothing the service says can become shell syntax. Its output never
// reaches the review screen (stdout is dropped; stderr is kept only to quote its first line when it
// fails); it runs one at a time, off the review's path, within a time limit (then its whole process
// group is killed). A failure is one line, and review goes on. docs/approvals.md.
import { spawn } from 'node:child_process';
import type { Clock } from '../../clock.js';
import type { PendingTransaction } from '../../api/schemas.js';
import { UsageError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { approversText, quorumOf } from '../../core/quorum.js';

/** How long one run may take before it is stopped. */
export const NOTIFY_TIME_LIMIT_MS = 10_000;
/** Of what it writes to stderr, this much is kept to quote in a failure line. */
const STDERR_KEPT = 4096;

/** Variables svc itself reads that hold secrets: a notify command is not given them. */
/**
 * Variables a notify command never receives: svc's secrets (the API key, the decryption key, a
 * webhook signing secret) and any variable whose name says it holds one (…SECRET…, …TOKEN…,
 * …PASSWORD…, …API_KEY…, …PRIVATE_KEY…, …CREDENTIAL…). The command is a line the user wrote, but
 * what it runs (a notifier, a script, a webhook to a chat) need not see them.
 */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|^SVC_DECRYPTION_KEY$/i;
export const isWithheld = (name: string) => SECRET_NAME.test(name);

export interface Notifier {
  /** Queues one run for a newly held transaction. */
  notify(tx: PendingTransaction): void;
  /** Stops the run under way (its process group) and drops the queued ones. */
  stop(): void;
  /** Settles when the queue is empty (for tests and an orderly end). */
  idle(): Promise<void>;
}

/** --notify-command: a non-empty command line. */
export function parseNotifyCommand(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === '') throw new UsageError('--notify-command must be a command line, such as \'notify-send "held: $SVC_TRANSACTION_ID"\'');
  return text;
}

/** The environment of one run: svc's own, less its secrets, plus what the transaction is. */
export function notifyEnv(base: NodeJS.ProcessEnv, tx: PendingTransaction): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !isWithheld(k)) env[k] = v;
  // Sanitised like anything from the service shown to a person (the command may well show them).
  env.SVC_TRANSACTION_ID = sanitize(tx.transaction_id);
  env.SVC_AGENT = sanitize(tx.agent);
  env.SVC_TO = sanitize(tx.to);
  env.SVC_EXPIRES_AT = sanitize(tx.expires_at);
  // The quorum (beyond the spec): how many approvals it needs, how many it has, and whose. A
  // service that says nothing of it needs one approval.
  const q = quorumOf(tx) ?? { required: 1, approvals: [] };
  env.SVC_APPROVALS = String(q.approvals.length);
  env.SVC_APPROVALS_REQUIRED = String(q.required);
  env.SVC_APPROVED_BY = q.approvals.length ? approversText(q.approvals) : '';
  return env;
}

/**
 * Runs `command` for each transaction given to notify(), one after the other. `report` gets one
 * line (sanitised) for each run that fails, is stopped at the time limit, or cannot start.
 */
export function notifier(opts: { command: string; env: NodeJS.ProcessEnv; clock: Clock; report: (line: string) => void; timeLimitMs?: number }): Notifier {
  const limit = opts.timeLimitMs ?? NOTIFY_TIME_LIMIT_MS;
  const queue: PendingTransaction[] = [];
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let current: { kill: () => void } | undefined;

  const runOne = (tx: PendingTransaction): Promise<void> =>
    new Promise<void>((resolve) => {
      const id = sanitize(tx.transaction_id);
      let child;
      try {
        // detached: its own process group, so a time limit stops what the shell started too,
        // and Ctrl-C in the approver's terminal goes to review, not to it.
        child = spawn('/bin/sh', ['-c', opts.command], { env: notifyEnv(opts.env, tx), stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      } catch (err) {
        opts.report(`notify-command for ${id} could not start: ${sanitize((err as Error).message)}`);
        return resolve();
      }
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        if (stderr.length < STDERR_KEPT) stderr += d.slice(0, STDERR_KEPT - stderr.length);
      });
      const ended = new AbortController();
      let timedOut = false;
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      current = { kill: killGroup };
      void opts.clock.sleep(limit, AbortSignal.any([ended.signal, stopping.signal])).then(() => {
        if (ended.signal.aborted) return;
        timedOut = !stopping.signal.aborted;
        killGroup();
      });
      child.on('error', (err) => {
        ended.abort();
        opts.report(`notify-command for ${id} could not start: ${sanitize(err.message)}`);
        resolve();
      });
      child.on('close', (code, signal) => {
        ended.abort();
        current = undefined;
        const said = stderr.split('\n').find((l) => l.trim() !== '');
        const quote = said ? `: ${sanitize(said.slice(0, 200))}` : '';
        if (timedOut) opts.report(`notify-command for ${id} did not finish within ${limit / 1000}s: stopped`);
        else if (!stopping.signal.aborted && (code !== 0 || signal !== null)) opts.report(`notify-command for ${id} failed (${signal ?? `exit ${code}`})${quote}`);
        resolve();
      });
    });

  const drain = async () => {
    for (let tx = queue.shift(); tx && !stopping.signal.aborted; tx = queue.shift()) await runOne(tx);
    running = undefined;
  };

  return {
    notify(tx) {
      if (stopping.signal.aborted) return;
      queue.push(tx);
      running ??= drain();
    },
    stop() {
      stopping.abort();
      queue.length = 0;
      current?.kill();
    },
    idle: () => running ?? Promise.resolve(),
  };
}
