// What an owner reads of its agent's own account (sandbox extensions, beyond the spec, which gives
// an owner no way to see an agent's balance or list its transfers): what an approver needs before
// approving (an approval fails on a short balance; a first payment to a recipient deserves a
// second look). docs/sandbox.md "What an owner reads of its agent".
//   GET /v1/agents/{account_id}/balances   {balances: [{asset, nonzero, ciphertext?, version?}]}
//   GET /v1/agents/{account_id}/transfers  as GET /v1/transfers, for the agent's transfers
// Readers: the owner, or the agent itself (403 not_agent_owner otherwise). No amount in plaintext:
// a balance travels only encrypted to the reader's viewing key.
import { contexts } from '../../crypto/ciphertext.js';
import type { ApiContext, Routes } from '../http/context.js';
import { ok, type Reply } from '../http/respond.js';
import { encryptFor } from '../viewing.js';
import { ownedAgent } from './agents.js';
import { transfersPage } from './transfers.js';

/**
 * Per asset the agent has held: whether it is non-zero, and its amount (minor units) encrypted to
 * the reader, bound to the agent, the asset, the balance version and the reader
 * (`agent-balance|<agent>|<asset>|<version>|<reader>`); no ciphertext when the reader has no
 * viewing key.
 */
function balances(ctx: ApiContext): Reply {
  const agent = ownedAgent(ctx);
  const { store } = ctx.world;
  const versions = store.balanceCiphertexts(agent.account_id);
  return ok({
    balances: store.assets(agent.account_id).map((asset) => {
      const units = store.balance(agent.account_id, asset);
      const version = versions.get(asset)?.version ?? 0;
      const ciphertext = encryptFor(ctx.account, units.toString(), contexts.agentBalance(agent.account_id, asset, version, ctx.account.account_id));
      return { asset, nonzero: units > 0n, ...(ciphertext ? { ciphertext, version } : {}) };
    }),
  });
}

function transfers(ctx: ApiContext): Reply {
  return transfersPage(ctx, ownedAgent(ctx).account_id);
}

export function registerAgentAccountRoutes(routes: Routes): void {
  routes.api('GET', '/v1/agents/:account_id/balances', balances);
  routes.api('GET', '/v1/agents/:account_id/transfers', transfers);
}
