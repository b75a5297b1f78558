// zod schemas for every resource of the spec. Lenient where the spec says "not shown":
// unknown fields are kept, optional fields may be missing, lists come in several shapes.
import { z } from 'zod';

const ts = z.string();

export const TransferSchema = z.looseObject({
  transfer_id: z.string(),
  status: z.string(),
  from: z.string().optional(),
  to: z.string(),
  confidential: z.boolean().optional(),
  tx_hash: z.string().nullable().optional(),
  created_at: ts.optional(),
  confirmed_at: ts.nullable().optional(),
  asset: z.string().optional(),
  amount_ciphertext: z.string().optional(),
  memo_ciphertext: z.string().optional(),
});
export type Transfer = z.infer<typeof TransferSchema>;

/** An agent's transfer held for approval (DESIGN.md: 202 with transaction_id). */
export const HeldTransactionSchema = z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  expires_at: ts.optional(),
});
export type HeldTransaction = z.infer<typeof HeldTransactionSchema>;

export const AccountSchema = z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  type: z.string(),
  public_key: z.string(),
  kyc_status: z.string(),
  created_at: ts.optional(),
  viewing_public_key: z.string().optional(),
});
export type Account = z.infer<typeof AccountSchema>;

export const BalanceEntrySchema = z.looseObject({
  asset: z.string(),
  amount: z.string().optional(),
  nonzero: z.boolean().optional(),
  ciphertext: z.string().optional(),
  /** Sandbox extension: the balance version the ciphertext is bound to. */
  version: z.number().int().optional(),
});
export type BalanceEntry = z.infer<typeof BalanceEntrySchema>;

export const AgentSchema = z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  public_key: z.string().optional(),
  status: z.string().optional(),
  spend_policy_id: z.string().optional(),
});
export type Agent = z.infer<typeof AgentSchema>;

// Policy numbers are JSON numbers in the API; strings are accepted too so exact decimals survive.
const policyNumber = z.union([z.number(), z.string()]);
export const SpendPolicySchema = z.looseObject({
  policy_id: z.string().optional(),
  daily_limit_usdc: policyNumber.nullable().optional(),
  per_transaction_limit_usdc: policyNumber.nullable().optional(),
  allowed_recipients: z.array(z.string()).nullable().optional(),
  assets: z.array(z.string()).nullable().optional(),
  active_hours: z.string().nullable().optional(),
  hitl_threshold_usdc: policyNumber.nullable().optional(),
  updated_at: ts.optional(),
});
export type SpendPolicy = z.infer<typeof SpendPolicySchema>;

export const PendingTransactionSchema = z.looseObject({
  transaction_id: z.string(),
  agent: z.string(),
  to: z.string(),
  requested_at: ts,
  expires_at: ts,
  status: z.string().optional(),
  transfer_id: z.string().optional(),
  amount_ciphertext: z.string().optional(),
});
export type PendingTransaction = z.infer<typeof PendingTransactionSchema>;

export const WebhookSchema = z.looseObject({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret: z.string().optional(),
  created_at: ts.optional(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const DeliverySchema = z.looseObject({
  delivery_id: z.string().optional(),
  event_id: z.string().optional(),
  event: z.string().optional(),
  attempt: z.number().optional(),
  status_code: z.number().nullable().optional(),
  retry_count: z.number().optional(),
  next_retry_at: ts.nullable().optional(),
  state: z.string().optional(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

/** A list that may be a bare array, `{data: [...]}` or `{<noun>: [...]}`; page fields kept. */
export function listOf<T extends z.ZodType>(noun: string, item: T) {
  return z
    .union([
      z.array(item),
      z.looseObject({ [noun]: z.array(item) }),
      z.looseObject({ data: z.array(item) }),
    ])
    .transform((v): { items: z.infer<T>[]; hasMore?: boolean } => {
      if (Array.isArray(v)) return { items: v };
      const rec = v as Record<string, unknown>;
      const items = (rec[noun] ?? rec.data) as z.infer<T>[];
      const hasMore = typeof rec.has_more === 'boolean' ? rec.has_more : undefined;
      return { items, hasMore };
    });
}
