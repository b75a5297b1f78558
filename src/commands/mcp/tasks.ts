// wait_for_decision as an MCP task (protocol 2025-11-25, experimental in the SDK): a host that
// negotiates tasks and sends a task-augmented tools/call gets a task at once; it stays `working`,
// its statusMessage saying "awaiting approval, expires in 12m", until a human decides or the hold
// expires, then `completed` with the very result the tool gives (tasks/result). tasks/cancel
// stops the wait and nothing else: the held transaction stays for the humans. The task's wait is
// bounded by the held transaction's expiry (not by timeout_seconds) and by the session's end.
// Hosts without tasks call the plain tool (wait.ts). No other tool runs as a task.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, CreateTaskResult, ServerNotification, ServerRequest, Task } from '@modelcontextprotocol/sdk/types.js';
import type { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { HeldResource } from '../../api/schemas.js';
import { fetchHeld } from '../../core/held.js';
import type { InterruptWatch } from '../../runtime/interrupt.js';
import type { ReadCtx } from './reads.js';
import { toolError, type Outcome } from './results.js';
import { awaitingText, progressReporter, progressSender, untilExpiry } from './wait-progress.js';
import { decisionOutcome, waitArgs } from './wait.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What tasks/get says between reads: the host may ask this often (a local process; cheap). */
export const TASK_POLL_MS = 2_000;
/** Kept this long after the hold expires (and after the result, per the store): the host reads the result. */
const KEEP_MS = 3_600_000;
/** The task's own wait when the expiry cannot be read: as long as a `pending wait` at most. */
const EXPIRY_GRACE_MS = 60_000;

/** The server's tasks capability: tools/call may be task-augmented; tasks can be listed and cancelled. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

export interface WaitTasks {
  /** The Server option `taskStore`. */
  store: InMemoryTaskStore;
  /** Answers a task-augmented tools/call: the task, its wait started. */
  start(request: CallToolRequest, extra: Extra): Promise<CreateTaskResult>;
  /** One HTTP session's end (DELETE, or its transport closed): that session's task waits stop; how many. */
  endSession(sessionId: string): number;
  /** The session's end: every wait stops, every timer of the store goes. */
  close(): void;
}

export interface TaskHooks {
  /** The secrets a tool error must not show. */
  secrets: readonly string[];
  /** Each finished task's outcome, as a tool call's (the log line, the session budget). */
  finish(outcome: Outcome): void;
}

export async function waitTasks(ctx: ReadCtx, hooks: TaskHooks): Promise<WaitTasks> {
  const [{ InMemoryTaskStore }, { McpError, ErrorCode }] = await Promise.all([
    import('@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  /** Each running task's wait, and the session (Mcp-Session-Id over HTTP) it belongs to. */
  const waits = new Map<string, { stop: AbortController; sessionId: string | undefined }>();
  /** The store, told of a cancel (tasks/cancel sets the status here): that task's wait stops at once. */
  class Store extends InMemoryTaskStore {
    override async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
      await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
      if (status === 'cancelled') waits.get(taskId)?.stop.abort();
    }
  }
  const store = new Store();
  /** Until `expires_at` on the service's clock (0 when past or unreadable). */
  const leftMs = (expiresAt: string) => Math.max(0, untilExpiry(ctx, expiresAt) ?? 0);

  const start = async (request: CallToolRequest, extra: Extra): Promise<CreateTaskResult> => {
    const { name } = request.params;
    if (name !== 'wait_for_decision') throw new McpError(ErrorCode.MethodNotFound, 'only wait_for_decision runs as a task; call this tool without `task`');
    const tasks = extra.taskStore;
    if (!tasks) throw new McpError(ErrorCode.InternalError, 'no task store');
    // The first read before the task: its expiry sets how long the task is kept. A bad id or a
    // failed read still makes a task, `failed` with the tool's error, as the plain call would answer.
    let first: { id: string; held: HeldResource } | undefined;
    let failure: Outcome | undefined;
    try {
      const { id } = waitArgs(request.params.arguments);
      ctx.network.renew(); // the first read has the whole --timeout, as a call's does
      first = { id, held: await fetchHeld(await ctx.client(), id, { what: `read ${id}` }) };
    } catch (err) {
      failure = toolError(err, hooks.secrets);
    }
    const untilExpiry = first ? leftMs(first.held.expires_at) : 0;
    const ttl = Math.max(extra.taskRequestedTtl ?? 0, untilExpiry + KEEP_MS);
    const task = await tasks.createTask({ ttl, pollInterval: TASK_POLL_MS });
    if (failure || !first) {
      const outcome = failure!;
      hooks.finish(outcome);
      await tasks.storeTaskResult(task.taskId, 'failed', outcome.result);
      return { task: await tasks.getTask(task.taskId) };
    }
    // The statusMessage is there from the start (set in the store: no status notification before the answer).
    await store.updateTaskStatus(task.taskId, 'working', awaitingText(ctx, first.held), extra.sessionId);
    void run(task.taskId, first.id, first.held, untilExpiry, extra);
    return { task: await tasks.getTask(task.taskId) };
  };

  const run = async (taskId: string, id: string, held: HeldResource, untilExpiry: number, extra: Extra): Promise<void> => {
    const tasks = extra.taskStore!;
    const cancel = new AbortController();
    waits.set(taskId, { stop: cancel, sessionId: extra.sessionId });
    const signal = AbortSignal.any([ctx.interrupt.signal(), cancel.signal]);
    const stopped = new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
    const interrupt: InterruptWatch = { wait: () => stopped, signal: () => signal };
    const notify = progressSender(extra);
    const report = progressReporter(ctx, { status: (message) => tasks.updateTaskStatus(taskId, 'working', message), ...(notify ? { notify } : {}) });
    let outcome: Outcome;
    try {
      outcome = await decisionOutcome({ ...ctx, interrupt }, id, { timeoutMs: untilExpiry + EXPIRY_GRACE_MS, known: held, onPending: report });
    } catch (err) {
      waits.delete(taskId);
      if (signal.aborted) return; // cancelled (already `cancelled`), or the session ended
      outcome = toolError(err, hooks.secrets);
    }
    waits.delete(taskId);
    hooks.finish(outcome);
    await tasks.storeTaskResult(taskId, outcome.result.isError ? 'failed' : 'completed', outcome.result).catch(() => undefined);
  };

  return {
    store,
    start,
    endSession: (sessionId) => {
      let stopped = 0;
      for (const w of waits.values()) {
        if (w.sessionId === sessionId && !w.stop.signal.aborted) {
          w.stop.abort();
          stopped++;
        }
      }
      return stopped;
    },
    close: () => {
      for (const w of waits.values()) w.stop.abort();
      store.cleanup();
    },
  };
}
