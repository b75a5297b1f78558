// `svc transfer ls`: one page, or every page with --all, streamed through ListWriter so memory
// stays flat however many transfers there are: the next page is fetched while the current one is
// written (paging.ts), rows are checked cheaply (page-answer.ts), and only a human's AMOUNT column
// or --decrypt pays for decryption.
import type { Needs } from '../../runtime/factory.js';
import type { Transfer } from '../../api/schemas.js';
import { OFFSET_MAX, PAGE_LIMIT_MAX, parseWholeNumber, wholeNumberRule } from '../../domain/paging.js';
import { parseTimestamp, TIMESTAMP_RULE } from '../../domain/timestamp.js';
import { UsageError } from '../../errors.js';
import { addressDisplay } from '../../io/addresses.js';
import { palette } from '../../io/colors.js';
import { ListWriter, outputMode } from '../../io/render.js';
import { TransferPageAnswer } from './page-answer.js';
import { rowsAhead, transferPages, type Page } from './paging.js';
import { TransferOpener } from './page-opener.js';
import { drainOrClose } from '../../runtime/pages.js';
import { TRANSFER_STATUSES, transferColumns } from './columns.js';
import { withOpened, type Opened } from './decrypt.js';

const NOT_OPENED: Opened = { amount: null, memo: null };

export interface LsOptions {
  status?: string;
  since?: string;
  until?: string;
  limit?: string;
  offset?: string;
  all?: boolean;
  decrypt?: boolean;
  jsonl?: boolean;
}

export interface LsPlan {
  filters: { status?: string; from?: string; to?: string };
  /** Page size sent as `limit` (undefined: the server's default, 20). */
  limit?: number;
  offset?: number;
  all: boolean;
}

export const MAX_PAGE = PAGE_LIMIT_MAX;

/** A --since / --until value as the API's UTC form (a time without an offset is UTC, never local). */
export function parseIsoTime(text: string, flag: string): string {
  const t = parseTimestamp(text, { withoutOffset: 'utc' });
  if (!t) throw new UsageError(`${flag} "${text}" ${TIMESTAMP_RULE}`);
  return new Date(t.ms).toISOString();
}

function parseInteger(text: string, flag: string, min: number, max: number): number {
  const n = parseWholeNumber(text.trim(), min, max);
  if (n === undefined) throw new UsageError(`${flag} "${text}" must be ${wholeNumberRule(min, max)}`);
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
  if (opts.limit !== undefined) plan.limit = parseInteger(opts.limit, '--limit', 1, MAX_PAGE);
  if (opts.offset !== undefined) plan.offset = parseInteger(opts.offset, '--offset', 0, OFFSET_MAX);
  if (plan.all) plan.limit ??= MAX_PAGE;
  return plan;
}

export async function listTransfers(ctx: Needs<'client' | 'decryptionKey' | 'globals' | 'io' | 'json' | 'reader' | 'serviceClock'>, opts: LsOptions): Promise<void> {
  // JSON Lines is machine output like --json: failures are reported as one JSON object too.
  if (opts.jsonl) ctx.globals.json = true;
  const plan = planList(opts);
  const client = await ctx.client();
  const mode = outputMode(ctx.io, ctx.json);
  const [p, show] = await Promise.all([palette(ctx.io), addressDisplay(mode)]);
  const writer = new ListWriter(ctx.io, mode, transferColumns(p, () => ctx.serviceClock.now(), show), { jsonLines: Boolean(opts.jsonl) });
  // Decrypting is a key operation per row, paid only where it shows: a human's AMOUNT column
  // (table, TSV: amounts only, the memo is not a column) or --decrypt with JSON (amounts and
  // memos). Plain --json / --jsonl never loads the key nor looks the account up.
  const opens = mode !== 'json' ? { memo: false } : opts.decrypt ? { memo: true } : undefined;
  // The key (and the account lookup it needs) is loaded once, when a row first carries a
  // ciphertext to open; undefined once loaded means there is no decryption key.
  let opener: TransferOpener | undefined;
  let readerLoaded = false;
  const needsReader = (t: Transfer) => Boolean(t.amount_ciphertext || (opens?.memo && t.memo_ciphertext));
  // A reader that stops early (`svc transfer ls --all | head`) closes the pipe: stop paging
  // quietly instead of crashing on EPIPE.
  let readerGone = false;
  ctx.io.stdout.on('error', () => {
    readerGone = true;
  });
  const pages = transferPages({
    fetch: async (offset) => {
      const query: Record<string, string | number | undefined> = { ...plan.filters, limit: plan.limit };
      if (plan.all || plan.offset !== undefined) query.offset = offset;
      return (await client.get('/v1/transfers', { query, schema: TransferPageAnswer })).data;
    },
    offset: plan.offset ?? 0,
    all: plan.all,
    ...(plan.limit !== undefined ? { limit: plan.limit } : {}),
    // Before the next page is requested, so requests never overlap.
    prepare: async (items) => {
      if (opens && !readerLoaded && items.some(needsReader)) {
        const reader = await ctx.reader();
        readerLoaded = true;
        if (reader) opener = new TransferOpener(reader, { memo: opens.memo, key: () => ctx.decryptionKey(), trace: ctx.globals.verbose ? (line) => ctx.io.err(`${line}\n`) : undefined });
      }
    },
  });
  // Where the last page ended and whether more follow (for the hint), not the page itself.
  let next = 0;
  let more: boolean | undefined;
  // Without a key to open anything, rows are cheap: made as they come. With one, they are opened
  // on this thread in turns (mapInTurns) or, for a long list, on worker threads a page ahead.
  const rowsOf = async (page: Page): Promise<Transfer[]> => {
    if (!opener) return !opens ? page.items : page.items.map((t) => withOpened(t, NOT_OPENED, mode, true));
    const opened = await opener.open(page.items, page.more);
    return page.items.map((t, i) => withOpened(t, opened[i]!, mode, true));
  };
  try {
    for await (const { page, rows } of rowsAhead(pages, rowsOf, () => Boolean(opener?.parallel))) {
      next = page.offset + page.items.length;
      more = page.more;
      writer.write(rows);
      // Respect back-pressure so a slow reader never makes us buffer pages in memory.
      if (ctx.io.stdout.writableNeedDrain && !readerGone) await drainOrClose(ctx.io.stdout);
      if (readerGone) return;
    }
  } finally {
    await opener?.close();
  }
  writer.end(plan.filters.status || plan.filters.from || plan.filters.to || plan.offset ? 'No transfers match these filters.' : 'No transfers yet. Send one: svc transfer send @handle 1.00');
  if (!plan.all && more && mode === 'table') {
    ctx.io.err(`${p.dim(`more transfers: --offset ${next} for the next page, or --all for everything`)}\n`);
  }
}
