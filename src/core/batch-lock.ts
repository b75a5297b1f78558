// One run of a batch at a time. Two runs of the same batch at once (a cron job overlapping the
// last, two terminals) would each decide from what the ledger said when they began, and the
// slower could pay a row the faster had just paid under another key. So a sending run holds a
// lock for its batch (config/config-lock.ts: a lock file beside the ledger, taken over through
// its `.break` step only when its holder's process is gone) from before it reads the ledger until
// every outcome is written; a second run is refused at once, nothing sent.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describeLockHolder, tryLock } from '../config/config-lock.js';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { CliError } from '../errors.js';
import { LEDGER_FOLDER, ledgerName, type LedgerScope } from './ledger/ledger.js';

/** Takes the batch's lock: its release, or `batch_in_progress` (exit 5) when another run holds it. */
export function lockBatch(env: NodeJS.ProcessEnv, scope: LedgerScope, batch: string): () => void {
  const dir = join(configDir(env), LEDGER_FOLDER);
  ensurePrivateDir(dir);
  const path = join(dir, `${ledgerName(scope)}.batch-${createHash('sha256').update(batch).digest('hex').slice(0, 16)}.lock`);
  const release = tryLock(path);
  if (release) return release;
  throw new CliError('conflict', 'batch_in_progress', `batch "${batch}" is being sent by another run${describeLockHolder(path)}; nothing was sent`, {
    hint: 'let it finish, then run the command again: rows it accepted are not sent twice',
    details: { batch_id: batch },
  });
}
