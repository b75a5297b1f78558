// Reading and writing the machine-local secret files of the config directory (keys, kept
// webhook secrets): never through a symbolic link, written whole under a name of their own
// (0600, O_EXCL) before they are moved into place, so a reader never sees half of one.
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** The file's text; undefined when there is none. A symbolic link is refused (ELOOP). */
export function readPrivateFile(path: string): string | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes `text` to a new 0600 file of an unguessable name in `dir` and returns its path (the caller links or renames it into place). */
export function writePrivateTemp(dir: string, prefix: string, text: string): string {
  const temp = join(dir, `.${prefix}${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return temp;
}
