// An agent of @alice for an MCP test: its own profile (of its own name), funded, holding for the
// owner's approval above 50. One place for what four MCP test files each wrote out.
import { ProfileStore } from '../../src/config/profiles.js';
import type { TestSandbox } from './e2e.js';

export interface TestAgent {
  profile: string;
  handle: string;
}

const made = new Map<string, number>();

/** A new agent named `<prefix><n>`, saved as a profile of that name, funded with 1000. */
export async function newTestAgent(t: TestSandbox, prefix: string): Promise<TestAgent> {
  const n = (made.get(prefix) ?? 0) + 1;
  made.set(prefix, n);
  const name = `${prefix}${n}`;
  await t.svcOk(['agent', 'create', name, '--approval-threshold', '50', '--per-transaction-limit', '500', '--daily-limit', '5000', '--save-profile', name]);
  const handle = `@alice/${name}`;
  await t.svcOk(['sandbox', 'fund', handle, '1000']);
  return { profile: name, handle };
}

/** Points a profile at another base URL (a proxy in front of the sandbox), its keys kept. */
export async function pointProfileAt(t: TestSandbox, profile: string, baseUrl: string): Promise<void> {
  const store = new ProfileStore(t.configDir);
  const saved = store.get(profile)!;
  await store.set(profile, { apiKey: saved.apiKey, baseUrl, ...(saved.decryptionKey ? { decryptionKey: saved.decryptionKey } : {}) });
}
