// `svc pending ls --all` / `--status <s>`: the history of held transactions, newest first,
// decided and expired ones included (GET /v1/agents/transactions, beyond the spec: docs/agents.md),
// streamed a page ahead (src/runtime/pages.ts) so memory stays flat however long it is. With the
// owner's key every agent's; with an agent's key its own.
import type { Needs } from '../../runtime/factory.js';
import { HELD_STATUSES, type HeldResource } from '../../api/schemas.js';
import { UsageError } from '../../errors.js';
import { addressDisplay } from '../../io/addresses.js';
import { palette } from '../../io/colors.js';
import { ListWriter, outputMode } from '../../io/render.js';
import { drainOrClose, pagesAhead } from '../../runtime/pages.js';
import { fetchHeldPage } from '../../core/held.js';
import type { OpenedHeld } from './queue.js';
import { heldColumns, heldOpener, heldRow } from './record.js';

export interface HistoryOptions {
  all?: boolean;
  status?: string;
  decrypt?: boolean;
}

const PAGE = 100;

/** `--status` as the service spells it (any case), or a usage error naming the four. */
export function parseHeldStatus(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const s = text.trim().toLowerCase();
  if (!(HELD_STATUSES as readonly string[]).includes(s)) throw new UsageError(`--status "${text}" must be one of ${HELD_STATUSES.join(', ')}`);
  return s;
}

export async function listHistory(ctx: Needs<'client' | 'io' | 'json' | 'reader' | 'serviceClock'>, opts: HistoryOptions): Promise<void> {
  const status = parseHeldStatus(opts.status);
  const client = await ctx.client();
  const mode = outputMode(ctx.io, ctx.json);
  const [p, show] = await Promise.all([palette(ctx.io), addressDisplay(mode)]);
  const writer = new ListWriter(ctx.io, mode, heldColumns(p, () => ctx.serviceClock.now(), show));
  // A human's AMOUNT column, or --decrypt with JSON, pays for decryption; plain --json does not.
  const opens = mode !== 'json' || Boolean(opts.decrypt);
  const open = heldOpener(ctx);
  const none: OpenedHeld = { hasMemo: false };
  let readerGone = false;
  ctx.io.stdout.on('error', () => {
    readerGone = true;
  });
  const pages = pagesAhead<HeldResource>({
    fetch: (offset) => fetchHeldPage(client, { ...(status ? { status } : {}), limit: PAGE, offset }),
    limit: PAGE,
    offset: 0,
    all: true,
  }, (h) => h.transaction_id);
  for await (const page of pages) {
    const rows: Record<string, unknown>[] = [];
    for (const h of page.items) rows.push(heldRow(h, opens ? await open(h) : none, mode, Boolean(opts.decrypt)));
    writer.write(rows);
    // Respect back-pressure so a slow reader never makes us buffer pages in memory.
    if (ctx.io.stdout.writableNeedDrain && !readerGone) await drainOrClose(ctx.io.stdout);
    if (readerGone) return;
  }
  writer.end(status ? `No held transactions are ${status}.` : 'No held transactions yet: an agent\'s transfer above its approval threshold appears here.');
}
