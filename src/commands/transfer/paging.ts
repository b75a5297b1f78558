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
