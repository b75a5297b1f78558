// `svc sandbox export`: the whole state as one JSON document.
import type { App } from '../../app.js';
import { printJson } from '../../io/render.js';
import { ExportSchema } from '../../api/control-schemas.js';
import { adminTarget, call } from './target.js';

/** `svc sandbox export`: the control API's full dump, always JSON (it is a document to keep). */
export async function exportSandbox(app: App): Promise<void> {
  const target = await adminTarget(app);
  printJson(app.io, await call(() => target.client.get('/_sandbox/export', { schema: ExportSchema })));
}
