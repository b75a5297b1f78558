// The checks that need no network: the Node.js version, and the config directory and file (the
// same symlink and owner rules every command applies, src/config/safe-path.ts, plus the modes
// the tool creates them with: 0700 and 0600).
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { readProfiles } from '../../config/profile-file.js';
import { checkPrivatePath } from '../../config/safe-path.js';
import { fail, ok, skip, type CheckResult } from './check.js';
import { shellWord } from '../../domain/shell-command.js';

/** package.json "engines": ">=20.19" (a unit test keeps the two equal). */
export const MIN_NODE = '20.19';

/** `v20.19.0` or `20.19.0` against MIN_NODE. */
export function checkNode(version: string): CheckResult {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  const [minMajor, minMinor] = MIN_NODE.split('.').map(Number) as [number, number];
  const shown = version.startsWith('v') ? version : `v${version}`;
  const data = { version: shown, required: `>=${MIN_NODE}` };
  const fix = `install Node.js ${MIN_NODE} or later (https://nodejs.org), then run \`svc doctor\` again`;
  if (!m) return fail('node', `cannot read the version "${version}"; svc needs ${MIN_NODE} or later`, { fix, data });
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return ok('node', `${shown} (svc needs ${MIN_NODE} or later)`, { data });
  return fail('node', `${shown}: svc needs ${MIN_NODE} or later`, { fix, data });
}

// A path in a fix a user pastes (`chmod 700 '/My Config/svc'`) is one word: the one quoting function.
export { shellWord } from '../../domain/shell-command.js';

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
const checksModes = process.platform !== 'win32';

function lstat(path: string): Stats | NodeJS.ErrnoException {
  try {
    return lstatSync(path);
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}

/** Runs checkPrivatePath; its refusal (a link, another user's) as the message and hint, or undefined. */
function unsafe(path: string, what: 'config directory' | 'config file'): { message: string; hint?: string } | undefined {
  try {
    checkPrivatePath(path, what);
    return undefined;
  } catch (err) {
    if (err instanceof CliError) return { message: err.message, ...(err.hint ? { hint: err.hint } : {}) };
    return { message: `cannot inspect ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

export function checkConfigDir(env: NodeJS.ProcessEnv): CheckResult {
  const dir = configDir(env);
  const from = env.SVC_CONFIG_DIR ? ' (SVC_CONFIG_DIR)' : '';
  const data = { path: dir, ...(from ? { from: 'SVC_CONFIG_DIR' } : {}) };
  const st = lstat(dir);
  if (st instanceof Error) {
    if (st.code === 'ENOENT') return ok('config_dir', `${dir}${from}: not created yet`, { data: { ...data, exists: false } });
    return fail('config_dir', `${dir}${from}: cannot be read (${st.code ?? 'error'})`, { fix: `check the permissions of ${shellWord(dir)}`, data });
  }
  const refused = unsafe(dir, 'config directory');
  if (refused) return fail('config_dir', refused.message, { ...(refused.hint ? { fix: refused.hint } : {}), data: { ...data, usable: false } });
  if (!st.isDirectory()) {
    return fail('config_dir', `${dir}${from} is not a directory`, { fix: 'move it away, or set SVC_CONFIG_DIR to a directory of your own', data: { ...data, usable: false } });
  }
  if (!checksModes) return ok('config_dir', `${dir}${from}: a directory (modes are not checked on Windows)`, { data });
  const mode = st.mode & 0o777;
  if (mode !== 0o700) {
    return fail('config_dir', `${dir}${from}: mode ${octal(mode)}, should be 0700 (yours alone)`, { fix: `chmod 700 ${shellWord(dir)}`, data: { ...data, mode: octal(mode) } });
  }
  return ok('config_dir', `${dir}${from}: yours, mode 0700`, { data: { ...data, mode: octal(mode) } });
}

export function checkConfigFile(env: NodeJS.ProcessEnv, dirCheck: CheckResult): CheckResult {
  if (dirCheck.data?.usable === false) return skip('config_file', 'the config directory is refused (see config dir)');
  const dir = configDir(env);
  const file = join(dir, 'config.json');
  const data = { path: file };
  if (dirCheck.data?.exists === false) return ok('config_file', 'none yet (no profile saved)', { data: { ...data, exists: false } });
  const st = lstat(file);
  if (st instanceof Error) {
    if (st.code === 'ENOENT') return ok('config_file', 'no config.json yet (no profile saved)', { data: { ...data, exists: false } });
    return fail('config_file', `${file}: cannot be read (${st.code ?? 'error'})`, { fix: `check the permissions of ${shellWord(file)}`, data });
  }
  const refused = unsafe(file, 'config file');
  if (refused) return fail('config_file', refused.message, { ...(refused.hint ? { fix: refused.hint } : {}), data: { ...data, usable: false } });
  if (!st.isFile()) return fail('config_file', `${file} is not a file`, { fix: 'move it away; `svc profile add <name>` writes a new one', data: { ...data, usable: false } });
  const mode = st.mode & 0o777;
  if (checksModes && mode !== 0o600) {
    return fail('config_file', `config.json: mode ${octal(mode)}, should be 0600 (it holds your keys)`, { fix: `chmod 600 ${shellWord(file)}`, data: { ...data, mode: octal(mode) } });
  }
  let count: number;
  try {
    count = readProfiles(dir).names().length;
  } catch (err) {
    if (err instanceof CliError) return fail('config_file', err.message, { ...(err.hint ? { fix: err.hint } : {}), data: { ...data, usable: false } });
    return fail('config_file', `${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { data: { ...data, usable: false } });
  }
  const modeText = checksModes ? `, mode ${octal(mode)}` : '';
  return ok('config_file', `config.json: yours${modeText}, ${count} profile${count === 1 ? '' : 's'}`, { data: { ...data, ...(checksModes ? { mode: octal(mode) } : {}), profiles: count } });
}
