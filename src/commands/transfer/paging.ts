// Paging through GET /v1/transfers one page ahead (the pager itself is src/runtime/pages.ts,
// shared with `pending ls --all`): at most one request in flight and two pages held, however
// many transfers there are. Slow per-row work (decryption) goes through mapInTurns so that the
// request in flight is not kept waiting.
import type { Transfer } from '../../api/schemas.js';
import { pagesAhead, type Page as AnyPage, type PageSource as AnyPageSource } from '../../runtime/pages.js';

export { mapInTurns, ROWS_PER_TURN } from '../../runtime/pages.js';
export type PageSource = AnyPageSource<Transfer>;
export type Page = AnyPage<Transfer>;

/** Each page of transfers; see pagesAhead. */
export function transferPages(src: PageSource): AsyncGenerator<Page, void, undefined> {
  return pagesAhead(src, (t) => t.transfer_id);
}

/** A page and the rows made of it. */
export interface PageRows<R> {
  page: Page;
  rows: R[];
}

/**
 * Each page with the rows `rowsOf` makes of it, in order. While `ahead()` is false (the rows are
 * made on this thread) a page's rows are made, then it is yielded: as pagesAhead alone. Once it
 * is true (the rows are made elsewhere: decryption on worker threads), the next page is taken and
 * its rows started before a page is yielded, so they are under way while the caller writes: one
 * request in flight still, and one page more held. A page that fails to come is thrown after the
 * page before it has been yielded, as pagesAhead does.
 */
export async function* rowsAhead<R>(pages: AsyncGenerator<Page, void, undefined>, rowsOf: (page: Page) => Promise<R[]>, ahead: () => boolean): AsyncGenerator<PageRows<R>, void, undefined> {
  let held: { page: Page; rows: Promise<R[]> } | undefined;
  const settle = async (job: { page: Page; rows: Promise<R[]> }): Promise<PageRows<R>> => ({ page: job.page, rows: await job.rows });
  try {
    for (;;) {
      let next: IteratorResult<Page, void>;
      try {
        next = await pages.next();
      } catch (err) {
        if (held) yield await settle(held);
        throw err;
      }
      if (next.done) break;
      const job = { page: next.value, rows: rowsOf(next.value) };
      // Awaited in turn below; until then a failure must not count as unhandled.
      job.rows.catch(() => {});
      if (held) yield await settle(held);
      held = undefined;
      if (ahead()) held = job;
      else yield await settle(job);
    }
    if (held) yield await settle(held);
  } finally {
    await pages.return();
  }
}
