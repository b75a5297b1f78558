// `svc transfer ls`: one page, or every page with --all, streamed through ListWriter so memory
// stays flat however many transfers there are.
import { once } from 'node:events';
import type { App } from '../../app.js';
import { listOf, TransferSchema } from '../../api/schemas.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { palette } from '../../io/colors.js';
import { ListWriter, outputMode } from '../../io/render.js';
import { openerFor, TRANSFER_STATUSES, transferColumns, withOpened } from './shared.js';

export interface LsOptions {
  status?: string;
  since?: string;
  until?: string;
  limit?: string;
  offset?: string;
  all?: boolean;
  decrypt?: boolean;
}

export interface LsPlan {
  filters: { status?: string; from?: string; to?: string };
  /** Page size sent as `limit` (undefined: the server's default, 20). */
  limit?: number;
  offset?: number;
  all: boolean;
}

export const MAX_PAGE = 100;

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Parses an ISO 8601 date or date-time and returns it as `toISOString()` (UTC). A time without
 * an offset is taken as UTC, like every timestamp of the service; a bare date is its midnight UTC.
 */
export function parseIsoTime(text: string, flag: string): string {
  const m = ISO_RE.exec(text.trim());
  const bad = () =>
    new UsageError(`${flag} "${text}" must be an ISO 8601 date or time, such as 2024-05-01 or 2024-05-01T12:00:00Z`);
  if (!m) throw bad();
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zoneRaw] = m;
  const [Y, M, D, H, Mi, S] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const dayOk = M >= 1 && M <= 12 && D >= 1 && new Date(Date.UTC(Y, M - 1, D)).getUTCDate() === D;
  if (!dayOk || H > 23 || Mi > 59 || S > 59) throw bad();
  let zone = !zoneRaw || zoneRaw.toUpperCase() === 'Z' ? 'Z' : zoneRaw;
  if (zone !== 'Z') {
    const z = /^([+-]\d{2}):?(\d{2})?$/.exec(zone)!;
    if (Number(z[1]!.slice(1)) > 23 || Number(z[2] ?? '0') > 59) throw bad();
    zone = `${z[1]}:${z[2] ?? '00'}`;
  }
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${zone}`);
  if (Number.isNaN(ms)) throw bad();
  return new Date(ms).toISOString();
}

function parseInteger(text: string, flag: string, min: number, max: number, rule: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} "${text}" must be ${rule}`);
  return n;
}

/** Validates the flags locally (exit 2, nothing sent) and turns them into query parameters. */
export function planList(opts: LsOptions): LsPlan {
  const filters: LsPlan['filters'] = {};
  if (opts.status !== undefined) {
    const s = opts.status.trim().toLowerCase();
    if (!TRANSFER_STATUSES.includes(s)) throw new UsageError(`--status "${opts.status}" must be one of ${TRANSFER_STATUSES.join(', ')}`);
    filters.status = s;
  }
  if (opts.since !== undefined) filters.from = parseIsoTime(opts.since, '--since');
  if (opts.until !== undefined) filters.to = parseIsoTime(opts.until, '--until');
  if (filters.from && filters.to && filters.from > filters.to) throw new UsageError('--since must not be later than --until');
  const plan: LsPlan = { filters, all: Boolean(opts.all) };
  if (opts.limit !== undefined) plan.limit = parseInteger(opts.limit, '--limit', 1, MAX_PAGE, `a whole number from 1 to ${MAX_PAGE}`);
  if (opts.offset !== undefined) plan.offset = parseInteger(opts.offset, '--offset', 0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more');
  if (plan.all) plan.limit ??= MAX_PAGE;
  return plan;
}

/** Waits until a stream can take more data, or has failed or closed. */
async function drainOrClose(stream: NodeJS.WritableStream & { destroyed?: boolean }): Promise<void> {
  if (stream.destroyed) return;
  const ac = new AbortController();
  await Promise.race([
    once(stream, 'drain', { signal: ac.signal }),
    once(stream, 'close', { signal: ac.signal }),
    once(stream, 'error', { signal: ac.signal }),
  ]).catch(() => {});
  ac.abort();
}

export async function listTransfers(app: App, opts: LsOptions): Promise<void> {
  const plan = planList(opts);
  const client = await app.client();
  const mode = outputMode(app.io, app.json);
  const p = await palette(app.io);
  const writer = new ListWriter(app.io, mode, transferColumns(p));
  const schema = listOf('transfers', TransferSchema);
  // A reader that stops early (`svc transfer ls --all | head`) closes the pipe: stop paging
  // quietly instead of crashing on EPIPE.
  let readerGone = false;
  app.io.stdout.on('error', () => {
    readerGone = true;
  });
  let offset = plan.offset ?? 0;
  let previousFirst: string | undefined;
  let more: boolean | undefined;
  let lastCount = 0;
  for (;;) {
    const query: Record<string, string | number | undefined> = { ...plan.filters, limit: plan.limit };
    if (plan.all || plan.offset !== undefined) query.offset = offset;
    const { data } = await client.get('/v1/transfers', { query, schema });
    const first = data.items[0]?.transfer_id;
    if (plan.all && offset > (plan.offset ?? 0) && first !== undefined && first === previousFirst) {
      writer.end();
      throw new CliError('failure', 'invalid_response', 'the service ignored the page offset (it answered the same page twice); stopped to avoid looping');
    }
    previousFirst = first;
    const open = await openerFor(app, data.items);
    writer.write(data.items.map((t) => withOpened(t, open(t), mode, Boolean(opts.decrypt))));
    lastCount = data.items.length;
    // Respect back-pressure so a slow reader never makes us buffer pages in memory.
    if (app.io.stdout.writableNeedDrain && !readerGone) await drainOrClose(app.io.stdout);
    if (readerGone) return;
    more = data.hasMore ?? (plan.limit !== undefined ? data.items.length >= plan.limit : undefined);
    if (!plan.all) break;
    if (data.items.length === 0 || more === false) break;
    offset += data.items.length;
  }
  writer.end('No transfers.');
  if (!plan.all && more && mode === 'table') {
    const next = offset + lastCount;
    app.io.err(`${p.dim(`more transfers: --offset ${next} for the next page, or --all for everything`)}\n`);
  }
}
