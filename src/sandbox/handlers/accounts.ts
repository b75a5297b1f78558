// GET /v1/accounts/me
import type { Routes } from '../http/context.js';
import { ok } from '../http/respond.js';
import type { Account } from '../state.js';

/** The spec's account fields (plus `viewing_public_key` once accounts have one, issue 3). */
export function accountView(a: Account) {
  return {
    account_id: a.account_id,
    handle: a.handle,
    type: a.type,
    public_key: a.public_key,
    kyc_status: a.kyc_status,
    created_at: new Date(a.created_at).toISOString(),
    ...(a.viewing_public_key ? { viewing_public_key: a.viewing_public_key } : {}),
  };
}

export function registerAccountRoutes(routes: Routes): void {
  routes.api('GET', '/v1/accounts/me', (ctx) => ok(accountView(ctx.account)));
}
