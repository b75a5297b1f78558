// What a profile whose secrets are in the OS keyring costs at start-up (issue 24: aim <= ~20 ms over
// a file profile): `svc --json account` with the same key and sandbox, once from config.json and
// once from gnome-keyring on a private session bus. Outside a session bus this script starts its
// own (dbus-run-session, an unlocked gnome-keyring in a temporary HOME) and runs inside it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startSandbox } from './lib.mjs';
import { interleaved, report } from './measure.mjs';

if (!process.env.BENCH_KEYRING_SESSION) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-keyring-home-'));
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', `printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "${process.execPath}" "${import.meta.filename}"`], {
    stdio: 'inherit',
    env: { ...process.env, HOME: home, BENCH_KEYRING_SESSION: '1' },
  });
  rmSync(home, { recursive: true, force: true });
  if (r.error) console.log(`keyring start-up: skipped (${r.error.code === 'ENOENT' ? 'dbus-run-session is not installed' : r.error.message})`);
  process.exit(r.status ?? 0);
}

// The sandbox's own profile in config.json: the bench reads its key from there.
process.env.SVC_CREDENTIAL_STORE = 'file';
const sandbox = await startSandbox();
const dirs = [];
try {
  const profileIn = (store) => {
    const dir = mkdtempSync(join(tmpdir(), `svc-bench-${store}-`));
    dirs.push(dir);
    const env = { ...process.env, SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: store, NO_COLOR: '1', SVC_NO_UPDATE_NOTIFIER: '1' };
    const added = spawnSync(process.execPath, [BIN, '--base-url', sandbox.url, 'profile', 'add', 'bench', '--key-stdin'], { env, input: `${sandbox.apiKey}\n`, encoding: 'utf8' });
    if (added.status !== 0) throw new Error(`profile add (${store}): ${added.stderr}`);
    return { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: store };
  };
  const file = profileIn('file');
  const keyring = profileIn('keyring');
  const rows = interleaved([
    { label: 'svc --json account (file profile)', args: [BIN, '--json', 'account'], env: file },
    { label: 'svc --json account (keyring profile)', args: [BIN, '--json', 'account'], env: keyring },
  ], { ...process.env, NO_COLOR: '1', SVC_NO_UPDATE_NOTIFIER: '1' });
  const extra = rows[2].ms - rows[1].ms;
  rows.push({ label: 'keyring over file', value: `${extra.toFixed(1)} ms`, aim: '<= ~20 ms' });
  report('keyring start-up: a profile\'s key from gnome-keyring vs config.json', rows, `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs, Node ${process.version}`);
} finally {
  await sandbox.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
