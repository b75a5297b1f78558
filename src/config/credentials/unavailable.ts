// Why the OS keyring cannot be used, in words a person can act on: the message of
// keyring_unavailable, the one-time fallback warning, and `svc doctor`'s line.
import { CliError } from '../../errors.js';
import type { ProbeFailure } from './dbus-probe.js';
import { svc } from '../../domain/shell-command.js';

export type KeyringFailure = ProbeFailure | 'module_failed' | 'error';

export interface Unavailable {
  reason: KeyringFailure;
  /** A short technical detail (the module's error code), already free of secrets. */
  detail?: string;
}

const WHY: Record<KeyringFailure, string> = {
  no_session_bus: 'there is no D-Bus session bus (a headless, SSH or WSL session: DBUS_SESSION_BUS_ADDRESS is not set)',
  no_secret_service: 'no Secret Service answers on the session bus (no gnome-keyring or KeePassXC running)',
  locked: 'the keyring is locked',
  no_default_keyring: 'the Secret Service has no default keyring',
  timeout: 'the Secret Service did not answer in time (a hung D-Bus session)',
  module_failed: 'the keyring module (@napi-rs/keyring) could not be loaded',
  error: 'the OS keyring refused the request',
};

const FIX: Record<KeyringFailure, string> = {
  no_session_bus: 'run svc in a desktop session, or start a bus and a keyring: `dbus-run-session -- $SHELL`, then `gnome-keyring-daemon --unlock --components=secrets` (Debian/Ubuntu: apt install gnome-keyring dbus)',
  no_secret_service: 'install and start a Secret Service: gnome-keyring (apt install gnome-keyring) or KeePassXC with its Secret Service integration',
  locked: 'unlock the keyring (log in to the desktop, or `gnome-keyring-daemon --unlock`)',
  no_default_keyring: 'create a default keyring (Seahorse, "Passwords and Keys", or your keyring manager)',
  timeout: 'check that the keyring daemon is running and answering; logging out and in again restarts a stuck session',
  module_failed: 'reinstall svc with its optional dependencies (npm install -g @svc-cli/svc --include=optional)',
  error: 'check the keyring with its own tools (secret-tool, Keychain Access, Credential Manager)',
};

export function describeUnavailable(u: Unavailable): { why: string; fix: string } {
  return { why: `${WHY[u.reason]}${u.detail ? ` (${u.detail})` : ''}`, fix: FIX[u.reason] };
}

/** keyring_unavailable (exit 1): SVC_CREDENTIAL_STORE=keyring with no keyring, or a keyring profile that cannot be read. */
export function keyringUnavailable(u: Unavailable, what: string): CliError {
  const { why, fix } = describeUnavailable(u);
  return new CliError('failure', 'keyring_unavailable', `${what}: ${why}`, { hint: fix });
}

/** The one-time warning of `auto` falling back to the file (stderr, when a profile is first saved). */
export function fallbackWarning(u: Unavailable, profile: string, file: string): string {
  const { why, fix } = describeUnavailable(u);
  return `warning: no OS keyring: ${why}; the secrets of profile "${profile}" are stored in ${file} (mode 0600) instead. To use a keyring: ${fix}; then run ${svc`profile migrate ${profile} --to keyring`}.\n`;
}
