// Every error code the sandbox's source can answer, read from the source itself, is one the
// written contract names, with the status it names: the spec's Errors table, DESIGN.md's list
// "Error codes beyond the spec" and the other codes its decisions fix, or (for answers outside
// any route's logic: HTTP framing, a foreign Host or Origin, the control API) one that
// docs/sandbox.md documents as beyond the spec. A new code must be written down first (issue 34).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SANDBOX = join(ROOT, 'src/sandbox');

/** The spec's Errors table. */
const SPEC: Record<string, number> = {
  invalid_request: 400, invalid_policy: 400, unauthorized: 401, insufficient_balance: 402, kyc_required: 403,
  not_agent_owner: 403, recipient_not_found: 404, transaction_not_found: 404, transaction_expired: 409,
  recipient_not_confidential_ready: 422, decryption_proof_invalid: 422,
};
/** DESIGN.md, "Error codes beyond the spec". */
const DESIGN_BEYOND: Record<string, number> = {
  already_approved: 409, transaction_already_decided: 409, agent_name_taken: 409, rate_limited: 429,
  unsupported_media_type: 415, method_not_allowed: 405, forbidden: 403,
};
/** The other codes DESIGN.md's decisions fix where the spec says "not shown". */
const DESIGN_DECIDED: Record<string, number> = {
  policy_violation: 403, webhook_not_found: 404, event_not_found: 404, transfer_not_found: 404, idempotency_key_reused: 409,
};
const DOC = readFileSync(join(ROOT, 'docs/sandbox.md'), 'utf8');
/** Answers outside any route's logic: the rows of docs/sandbox.md's "Other answers" table. */
const OTHER_ANSWERS: Record<string, number> = Object.fromEntries(
  [...(/### Other answers\n([\s\S]*?)\n### /.exec(DOC)?.[1] ?? '').matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2]!, Number(m[1])]),
);
/** The control API's own (/_sandbox/..., admin token only), documented with it in docs/sandbox.md (checked below). */
const CONTROL: Record<string, number> = { account_not_found: 404, key_not_found: 404 };
const ALLOWED: Record<string, number> = { ...SPEC, ...DESIGN_BEYOND, ...DESIGN_DECIDED, ...OTHER_ANSWERS, ...CONTROL };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

interface Emitted {
  code: string;
  status: number;
  where: string;
}

/** Every (status, code) the sandbox source writes, and every place a code is not a literal. */
function scan(): { emitted: Emitted[]; opaque: string[] } {
  const emitted: Emitted[] = [];
  const opaque: string[] = [];
  for (const file of sourceFiles(SANDBOX)) {
    const text = readFileSync(file, 'utf8');
    const where = (i: number) => `${relative(ROOT, file)}:${text.slice(0, i).split('\n').length}`;
    const add = (re: RegExp) => {
      for (const m of text.matchAll(re)) emitted.push({ status: Number(m[1]), code: m[2]!, where: where(m.index) });
    };
    add(/new ApiFault\(\s*(\d{3}),\s*'([a-z_]+)'/g);
    // invalid(message) is 400 invalid_request (faults.ts).
    for (const m of text.matchAll(/\binvalid\(/g)) emitted.push({ status: 400, code: 'invalid_request', where: where(m.index) });
    // Answers written before any route runs: [status, 'code', message] tuples, and sendJson(res, status, ...errorBody('code'.
    add(/\[(\d{3}),\s*'([a-z_]+)',/g);
    add(/sendJson\([^,]+,\s*(\d{3}),\s*JSON\.stringify\(errorBody\('([a-z_]+)'/g);
    // A fault whose code is not a literal escapes the scan: there must be none.
    for (const m of text.matchAll(/new ApiFault\(([^)]{0,40})/g)) {
      if (!/^\s*\d{3},\s*'[a-z_]+'/.test(m[1]!) && !/^\s*(readonly|status)\b/.test(m[1]!)) opaque.push(`${where(m.index)}: new ApiFault(${m[1]}`);
    }
  }
  return { emitted, opaque };
}

describe('the error codes the sandbox source can answer', () => {
  const { emitted, opaque } = scan();

  it('are found (the scan sees the source)', () => {
    const codes = new Set(emitted.map((e) => e.code));
    for (const c of ['invalid_request', 'not_agent_owner', 'transaction_expired', 'idempotency_key_reused', 'not_found', 'request_header_fields_too_large', 'expectation_failed']) expect(codes).toContain(c);
    expect(opaque).toEqual([]);
  });

  it('are each in the spec, DESIGN.md or the sandbox\'s documented answers, with that status', () => {
    const outside = emitted.filter((e) => ALLOWED[e.code] === undefined).map((e) => `${e.where}: ${e.status} ${e.code}`);
    expect(outside, 'codes outside the written contract').toEqual([]);
    const wrongStatus = emitted.filter((e) => ALLOWED[e.code] !== undefined && ALLOWED[e.code] !== e.status).map((e) => `${e.where}: ${e.status} ${e.code} (written: ${ALLOWED[e.code]})`);
    expect(wrongStatus).toEqual([]);
  });

  it('beyond the spec and DESIGN.md, each is documented in docs/sandbox.md with its status', () => {
    // The table is read (a code that is not in it is outside the contract: the test above).
    for (const [code, status] of Object.entries({ not_found: 404, payload_too_large: 413, internal_error: 500 })) expect(OTHER_ANSWERS[code]).toBe(status);
    const undocumented = Object.entries(CONTROL).filter(([code, status]) => !new RegExp(`${status}\\W{0,8}${code}\\b`).test(DOC));
    expect(undocumented).toEqual([]);
  });
});
