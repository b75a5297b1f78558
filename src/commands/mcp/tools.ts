// The tools `svc mcp` offers, each with the JSON schema of its input and its annotations. There
// is never a tool that approves, rejects, changes a policy, creates keys or touches profiles:
// an agent proposes, a human decides elsewhere (docs/mcp.md). send_transfer is offered only to
// an agent's key, and never with --read-only.
import { KNOWN_ASSETS } from '../../domain/assets.js';
import { TRANSFER_STATUSES } from '../../api/schemas.js';
import { MEMO_RULE } from '../../domain/memo.js';
import { MAX_PAGE } from '../transfer/ls.js';
import { OUTPUT_SCHEMAS, type OutputSchema } from './output-schemas.js';
import { LIST_DEFAULT } from './reads.js';
import { DEFAULT_WAIT_S, MAX_WAIT_S } from './wait.js';

interface ToolInput {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** MCP 2025-11-25 tasks: a host that negotiates them may run this tool as a task (tasks.ts). */
  execution?: { taskSupport: 'optional' };
}

/** A tool as tools/list shows it: its input, its annotations, and the schema of its result (output-schemas.ts). */
export interface ToolSpec extends ToolInput {
  outputSchema: OutputSchema;
}

function withOutput(tool: ToolInput): ToolSpec {
  const outputSchema = OUTPUT_SCHEMAS[tool.name];
  if (!outputSchema) throw new Error(`mcp: tool ${tool.name} has no output schema`);
  return { ...tool, outputSchema };
}

const text = (description: string, extra: object = {}) => ({ type: 'string', description, ...extra });
const amount = text('a decimal string such as "12.50" (never a number), at most 6 decimals', { pattern: '^[0-9]+(\\.[0-9]+)?$' });
const asset = text(`the asset (default USDG)`, { enum: KNOWN_ASSETS });
const recipient = text('a handle such as @acme (an agent: @owner/name) or a 0x address');

const read = (title: string) => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });

export const SEND_TOOL: ToolSpec = withOutput({
  name: 'send_transfer',
  title: 'Send a transfer',
  description:
    "Send a confidential transfer from this agent's account, under its spend policy. Above the approval threshold it is held for a human: " +
    'the result is status "pending_approval" with a transaction_id (not an error); call wait_for_decision with it. A denial by the policy is an error with its reason. ' +
    'Retrying with the same idempotency_key never pays twice; without one a new key is made and returned.',
  inputSchema: {
    type: 'object',
    properties: {
      to: recipient,
      amount,
      asset,
      memo: text(`an optional note, encrypted for the recipient (${MEMO_RULE.replace(/^must be /, '')})`),
      idempotency_key: text('reuse it to retry the same transfer safely (1 to 255 printable ASCII characters, no spaces)'),
    },
    required: ['to', 'amount'],
    additionalProperties: false,
  },
  annotations: { title: 'Send a transfer', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
});

const READS: ToolInput[] = [
  {
    name: 'get_transfer',
    title: 'Get a transfer',
    description: 'One transfer of this account by its id (tr_…): status, recipient, and the amount and memo where this profile decrypts them.',
    inputSchema: { type: 'object', properties: { transfer_id: text('the transfer id, such as tr_1a2b3c') }, required: ['transfer_id'], additionalProperties: false },
    annotations: read('Get a transfer'),
  },
  {
    name: 'list_transfers',
    title: 'List transfers',
    description: `This account's transfers, newest first, one page at a time (${LIST_DEFAULT} by default): pass next_offset as offset for the next page.`,
    inputSchema: {
      type: 'object',
      properties: {
        status: text('only this status', { enum: [...TRANSFER_STATUSES] }),
        since: text('only from this time on (ISO 8601; UTC without an offset)'),
        until: text('only up to this time (ISO 8601; UTC without an offset)'),
        limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, description: `page size (default ${LIST_DEFAULT})` },
        offset: { type: 'integer', minimum: 0, description: 'where the page starts (default 0)' },
      },
      additionalProperties: false,
    },
    annotations: read('List transfers'),
  },
  {
    name: 'get_balance',
    title: 'Get the balance',
    description: "This account's balances, decrypted locally with this profile's decryption key (\"encrypted\" where it has none).",
    inputSchema: { type: 'object', properties: { asset }, additionalProperties: false },
    annotations: read('Get the balance'),
  },
  {
    name: 'check_policy',
    title: 'Check a transfer against the policy',
    description: 'A dry run of send_transfer: would the spend policy allow it, hold it for a human, or deny it, with the rule trace. Sends nothing.',
    inputSchema: { type: 'object', properties: { to: recipient, amount, asset }, required: ['to', 'amount'], additionalProperties: false },
    annotations: read('Check a transfer against the policy'),
  },
  {
    name: 'get_pending_transaction',
    title: 'Get a held transaction',
    description: 'A transfer held for human approval (txn_…): pending_approval, approved (with its transfer_id), rejected or expired.',
    inputSchema: { type: 'object', properties: { transaction_id: text('the held transaction id, such as txn_1a2b3c') }, required: ['transaction_id'], additionalProperties: false },
    annotations: read('Get a held transaction'),
  },
  {
    name: 'wait_for_decision',
    title: "Wait for a human's decision",
    description: `Wait until a human approves or rejects a held transaction, or it expires, for at most timeout_seconds (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}). ` +
      'Returns the state reached: approved (with transfer_id), rejected, expired, or still pending_approval (then call it again with the same transaction_id, as next_call says). ' +
      'It sends progress notifications every 5 s when the request has a progressToken. A wait over ~50 s needs a host that resets its request timeout on progress (resetTimeoutOnProgress) ' +
      'or runs this tool as a task (it then waits until the decision or the expiry); most hosts cut a request off at 60 s, so keep the default otherwise.',
    inputSchema: {
      type: 'object',
      properties: {
        transaction_id: text('the held transaction id from send_transfer'),
        timeout_seconds: { type: 'integer', minimum: 1, maximum: MAX_WAIT_S, description: `how long this call may wait (default ${DEFAULT_WAIT_S}; over ~50 s only with a host that resets its timeout on progress; ignored by a task, which waits until the decision or the expiry)` },
      },
      required: ['transaction_id'],
      additionalProperties: false,
    },
    annotations: read("Wait for a human's decision"),
    execution: { taskSupport: 'optional' },
  },
];

export const READ_TOOLS: readonly ToolSpec[] = READS.map(withOutput);
