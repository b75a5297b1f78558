// API key prefixes and what they say about the environment.

export type Environment = 'live' | 'test';

export const KEY_RE = /^svc_(live|test)_[A-Za-z0-9]{16,128}$/;

export function environmentOfKey(key: string): Environment | undefined {
  if (key.startsWith('svc_live_')) return 'live';
  if (key.startsWith('svc_test_')) return 'test';
  return undefined;
}

/** Returns a rule violation for an API key, or undefined when it is well formed. */
export function checkApiKey(key: string): string | undefined {
  if (!environmentOfKey(key)) return 'must start with svc_live_ or svc_test_';
  if (!KEY_RE.test(key)) return 'must be svc_live_ or svc_test_ followed by 16 to 128 letters or digits';
  return undefined;
}
