// The secret half of a profile, and where it sits in the keyring: one entry per profile (one round
// trip to read it), service "svc", account "<keyring id>/<profile>". The keyring id is random per
// config directory (config.json "keyring_id"), so two config directories (SVC_CONFIG_DIR) never
// share an entry.
export const KEYRING_SERVICE = 'svc';

export interface ProfileSecrets {
  apiKey: string;
  decryptionKey?: string;
  sandboxAdminToken?: string;
}

export const SECRET_FIELDS = ['apiKey', 'decryptionKey', 'sandboxAdminToken'] as const;

export function keyringAccount(keyringId: string, profile: string): string {
  return `${keyringId}/${profile}`;
}

/** The profile without its secrets: what config.json holds for a keyring profile. */
export function withoutSecrets(profile: object): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...profile };
  for (const field of SECRET_FIELDS) delete rest[field];
  return rest;
}

/** The keyring entry's text back into secrets; undefined when it is not what svc wrote. */
export function parseSecrets(text: string): ProfileSecrets | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || typeof (data as ProfileSecrets).apiKey !== 'string') return undefined;
  const d = data as Record<string, unknown>;
  return {
    apiKey: d.apiKey as string,
    ...(typeof d.decryptionKey === 'string' ? { decryptionKey: d.decryptionKey } : {}),
    ...(typeof d.sandboxAdminToken === 'string' ? { sandboxAdminToken: d.sandboxAdminToken } : {}),
  };
}
