// `svc sandbox export`: the whole state as one JSON document.
import type { Needs } from '../../runtime/factory.js';
import { printJson } from '../../io/render.js';
import { ExportSchema } from '../../api/control-schemas.js';
import { adminTarget, call } from './target.js';

/** `svc sandbox export`: the control API's full dump, always JSON (it is a document to keep). */
export async function exportSandbox(ctx: Needs<'clientFor' | 'globals' | 'io' | 'profiles'>): Promise<void> {
  const target = await adminTarget(ctx);
  printJson(ctx.io, await call(() => target.client.get('/_sandbox/export', { schema: ExportSchema })));
}
