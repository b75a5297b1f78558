// The base URL a test key takes when `profile add` is given none (issue 25): the sandbox of this
// config dir, never a port guessed in advance. A running sandbox first (the record `sandbox
// start` leaves: its real URL, whatever --port picked), preferring the one whose profile is the
// `sandbox` profile; else the URL the sandbox profile holds (not running now); only when neither
// exists the default address. A live key never gets a default (src/domain/key-transport.ts).
// The sandbox's state file comes with it: a profile saved with its URL follows that sandbox.
import type { ProfileLookup } from '../../config/profile-file.js';
import { isSandboxProfile, SANDBOX_PROFILE } from '../../config/sandbox-profile.js';
import { DEFAULT_SANDBOX_URL } from '../../domain/sandbox-address.js';
import { listRunning } from '../../config/sandbox-running.js';

export interface SandboxUrl {
  url: string;
  /** Where it came from, in the words of the output: `the running sandbox`. */
  source: string;
  /** That sandbox's state file, when it has one: a profile saved with this URL follows it. */
  state?: string;
}

const first = <T>(items: readonly T[], better: (t: T) => boolean): T | undefined => items.find(better) ?? items[0];

export function sandboxBaseUrl(env: NodeJS.ProcessEnv, profiles: ProfileLookup): SandboxUrl {
  const running = first(listRunning(env), (r) => r.profile === SANDBOX_PROFILE);
  if (running) return { url: running.url, source: 'the running sandbox', ...(running.state !== undefined ? { state: running.state } : {}) };
  const sandboxProfiles = profiles.names().filter((name) => {
    // A keyring profile whose secrets cannot be read now (no session bus) is not the sandbox's for this.
    let p;
    try {
      p = profiles.get(name);
    } catch {
      return false;
    }
    return p !== undefined && isSandboxProfile(p);
  });
  const name = first(sandboxProfiles, (n) => n === SANDBOX_PROFILE);
  if (name !== undefined) {
    const { baseUrl, sandboxState } = profiles.get(name)!;
    return { url: baseUrl, source: `the sandbox profile "${name}"; no sandbox runs now`, ...(sandboxState !== undefined ? { state: sandboxState } : {}) };
  }
  return { url: DEFAULT_SANDBOX_URL, source: 'the default sandbox address: no sandbox runs or has a profile in this config dir' };
}
