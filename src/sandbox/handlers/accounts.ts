// GET /v1/accounts/me and GET /v1/accounts/me/balances.
import { ProofError, parseProof, verifyProof, type BalanceCiphertext } from '../../crypto/proof.js';
import { formatUnits } from '../../domain/amount.js';
import type { ApiContext, Routes } from '../http/context.js';
import { ApiFault, invalid } from '../faults.js';
import { ok, type Reply } from '../http/respond.js';
import type { Account } from '../records.js';
import { isoTime } from '../iso-time.js';

/** The spec's account fields plus the sandbox-only `viewing_public_key`. */
export function accountView(a: Account) {
  return {
    account_id: a.account_id,
    handle: a.handle,
    type: a.type,
    public_key: a.public_key,
    kyc_status: a.kyc_status,
    created_at: isoTime(a.created_at),
    ...(a.viewing_public_key ? { viewing_public_key: a.viewing_public_key } : {}),
  };
}

function requireKyc(account: Account): void {
  if (account.kyc_status !== 'verified' && account.kyc_status !== 'enhanced') {
    throw new ApiFault(403, 'kyc_required', `${account.handle} has not completed identity verification (kyc_status ${account.kyc_status})`);
  }
}

/**
 * Without a proof: which assets are non-zero, with each balance's ciphertext to the account's
 * viewing key. With a valid `decryption_proof`: the amounts of the assets it covers. The proof
 * opens only the current ciphertexts; anything else is 422 decryption_proof_invalid.
 */
function balances(ctx: ApiContext): Reply {
  const { account, world } = ctx;
  requireKyc(account);
  const body = ctx.json();
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw invalid('body must be a JSON object');
  const proofText = (body as { decryption_proof?: unknown } | undefined)?.decryption_proof;
  const { store } = world;
  const views = store.balanceCiphertexts(account.account_id);

  if (proofText === undefined) {
    return ok({
      balances: store.assets(account.account_id).map((asset) => {
        const view = views.get(asset);
        return {
          asset,
          nonzero: store.balance(account.account_id, asset) > 0n,
          ...(view ? { ciphertext: view.ciphertext, version: view.version } : {}),
        };
      }),
    });
  }

  const current = new Map<string, BalanceCiphertext>();
  for (const [asset, v] of views) current.set(asset, { asset, ...v });
  try {
    const opened = verifyProof(account.account_id, parseProof(proofText), current);
    return ok({ balances: [...opened].map(([asset, units]) => ({ asset, amount: formatUnits(BigInt(units), asset) })) });
  } catch (err) {
    if (err instanceof ProofError) throw new ApiFault(422, 'decryption_proof_invalid', `decryption_proof does not match the current balance ciphertext: ${err.message}`);
    throw err;
  }
}

export function registerAccountRoutes(routes: Routes): void {
  routes.api('GET', '/v1/accounts/me', (ctx) => ok(accountView(ctx.account)));
  routes.api('GET', '/v1/accounts/me/balances', balances);
}
