// What each sealed value is bound to (the associated data of its AES-GCM seal): a sealed value
// opens only as the thing it was sealed for, so it cannot be moved to another row.
export const aad = {
  balance: (accountId: string, asset: string) => `svc-sandbox/balance/v1|${accountId}|${asset}`,
  transferAmount: (transferId: string) => `svc-sandbox/transfer-amount/v1|${transferId}`,
  transferMemo: (transferId: string) => `svc-sandbox/transfer-memo/v1|${transferId}`,
  heldAmount: (transactionId: string) => `svc-sandbox/held-amount/v1|${transactionId}`,
  heldMemo: (transactionId: string) => `svc-sandbox/held-memo/v1|${transactionId}`,
  webhookSecret: (webhookId: string) => `svc-sandbox/webhook-secret/v1|${webhookId}`,
  /** The first answer to an Idempotency-Key when it carried a secret (JSON: a key may hold `|`). */
  idempotentAnswer: (scope: string, key: string) => `svc-sandbox/idempotent-answer/v1|${JSON.stringify([scope, key])}`,
};
