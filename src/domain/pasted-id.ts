// An id pasted from a screen that shortened it (`tr_n8gOnwt…s5T5nESr`, from an older svc or
// another tool: svc's tables never cut an id). No service can find it, so it is refused for what
// it is, before any request, rather than answered "not found" with a hint back to the list.
import { UsageError } from '../errors.js';

/** The mark of a cut that `text` carries, if any: `…` (or the `...` some terminals copy it as). */
export function shortenedMark(text: string): string | undefined {
  return ['…', '...'].find((mark) => text.includes(mark));
}

/**
 * Refuses a shortened id (exit 2, `id_shortened`); `what` names the argument (`transfer id`),
 * `list` the command that shows the ids whole (`svc transfer ls`).
 */
export function refuseShortenedId(what: string, id: string, list: string): void {
  const mark = shortenedMark(id);
  if (mark === undefined) return;
  throw new UsageError(
    `${what} "${id}" was shortened on screen (it contains "${mark}"): an id must be given whole`,
    `\`${list}\` shows ids whole at any width; \`${list} --json\` gives them to a script`,
    'id_shortened',
  );
}
