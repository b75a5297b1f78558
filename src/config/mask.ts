// Secret masking: keep the prefix and the last four characters, hide the rest.

const PREFIXES = ['svc_live_', 'svc_test_', 'svc_dk_live_', 'svc_dk_test_', 'whsec_'];

export function maskSecret(secret: string): string {
  const prefix = PREFIXES.find((p) => secret.startsWith(p)) ?? '';
  const rest = secret.slice(prefix.length);
  if (rest.length <= 8) return `${prefix}****`;
  return `${prefix}****${rest.slice(-4)}`;
}

/** Replaces every occurrence of the given secrets in a text with their masked form. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 8) out = out.split(s).join(maskSecret(s));
  return out;
}
