// `svc pending get <id>`: one held transaction as a resource, with the owner's key or the agent's
// own (docs/agents.md). The amount and memo are decrypted locally where this profile's key opens
// them; --json prints the service's object (with --decrypt, plus amount and memo).
import type { Needs } from '../../runtime/factory.js';
import type { HeldResource } from '../../api/schemas.js';
import { addressDisplay } from '../../io/addresses.js';
import { palette } from '../../io/colors.js';
import { outputMode, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { checkTransactionId, fetchHeld } from '../../core/held.js';
import { heldFields, heldOpener, heldRow } from './record.js';

export interface GetOptions {
  decrypt?: boolean;
}

export async function getHeld(ctx: Needs<'auth' | 'client' | 'io' | 'json' | 'reader' | 'serviceClock'>, idText: string, opts: GetOptions = {}): Promise<void> {
  const id = checkTransactionId(idText);
  const client = await ctx.client();
  const held = await fetchHeld(client, id, { what: `read ${id}` });
  await printHeld(ctx, held, opts);
}

/** Prints one held transaction: a record on a terminal, key/value TSV piped, the object with --json. */
export async function printHeld(ctx: Needs<'auth' | 'io' | 'json' | 'reader' | 'serviceClock'>, held: HeldResource, opts: GetOptions = {}): Promise<void> {
  const mode = outputMode(ctx.io, ctx.json);
  const [p, show] = await Promise.all([palette(ctx.io), addressDisplay(mode)]);
  // Decrypting costs a key operation: done for a human's output, or when --decrypt asks.
  const opened = mode !== 'json' || opts.decrypt ? await heldOpener(ctx)(held) : { hasMemo: false };
  if (mode === 'table') {
    const auth = await ctx.auth();
    ctx.io.out(`${p.badge(auth.environment)} ${p.bold(`held transaction ${sanitize(held.transaction_id)}`)}\n`);
  }
  printRecord(ctx.io, mode, heldRow(held, opened, mode, Boolean(opts.decrypt)), heldFields(p, () => ctx.serviceClock.now(), show));
}
