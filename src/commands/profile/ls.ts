// `svc profile ls`: every profile, keys masked, the current one marked.
import type { Needs } from '../../runtime/factory.js';
import { textColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { describeProfile, profileOrStored } from './describe.js';

export async function listProfiles(ctx: Needs<'io' | 'json' | 'profiles'>): Promise<void> {
  const store = await ctx.profiles();
  await store.load(); // keyring profiles' keys, to mask them (one that cannot be read is listed without)
  const current = store.current;
  const rows = store.names().map((name) => describeProfile(name, profileOrStored(store, name)!, name === current));
  const mode = outputMode(ctx.io, ctx.json);
  const p = await palette(ctx.io);
  printList(ctx.io, mode, rows, [
    { key: 'current', header: ' ', format: (v) => (v ? '*' : ' ') },
    textColumn('name', 'NAME'),
    { key: 'environment', header: 'ENV', format: (v) => (v === 'live' || v === 'test' ? p.badge(v) : String(v)) },
    { key: 'api_key', header: 'API KEY', drop: 1 },
    textColumn('base_url', 'BASE URL', { min: 20 }),
  ], 'No profiles yet. Add one with `svc profile add <name>` or start the sandbox with `svc sandbox start`.');
}
