// `svc profile ls`: every profile, keys masked, the current one marked.
import type { App } from '../../app.js';
import { textColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { describeProfile } from './describe.js';

export async function listProfiles(app: App): Promise<void> {
  const store = await app.store();
  const rows = store.list().map(({ name, profile, current }) => describeProfile(name, profile, current));
  const mode = outputMode(app.io, app.json);
  const p = await palette(app.io);
  printList(app.io, mode, rows, [
    { key: 'current', header: ' ', format: (v) => (v ? '*' : ' ') },
    textColumn('name', 'NAME'),
    { key: 'environment', header: 'ENV', format: (v) => (v === 'live' || v === 'test' ? p.badge(v) : String(v)) },
    { key: 'api_key', header: 'API KEY', drop: 1 },
    textColumn('base_url', 'BASE URL', { min: 20 }),
  ], 'No profiles yet. Add one with `svc profile add <name>` or start the sandbox with `svc sandbox start`.');
}
