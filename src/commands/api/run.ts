// The logic of `svc api`: validate locally, read the body, send through ApiClient, print JSON.
import { readFile } from 'node:fs/promises';
import type { Needs } from '../../runtime/factory.js';
import type { Method } from '../../api/client.js';
import { UsageError } from '../../errors.js';
import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey } from '../../domain/idempotency.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { readStdin } from '../../io/secret-input.js';

export interface ApiOptions {
  data?: string;
  query?: string[];
  idempotencyKey?: string;
}

export const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function checkMethod(text: string): Method {
  const m = text.toUpperCase();
  if (!(METHODS as readonly string[]).includes(m)) throw new UsageError(`method "${text}" must be one of ${METHODS.join(', ')}`);
  return m as Method;
}

/** A path relative to the base URL: never a full URL, so the key only goes to the configured service. */
export function checkPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw new UsageError(`path "${path}" must be relative to the base URL (like /v1/accounts/me)`, 'use --base-url to talk to another service');
  }
  if (!path.startsWith('/')) throw new UsageError(`path "${path}" must start with / (like /v1/accounts/me)`);
  if (/[\s]/.test(path)) throw new UsageError(`path "${path}" must not contain spaces`);
  return path;
}

export function parseQuery(pairs: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new UsageError(`--query "${pair}" must be key=value`);
    query[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return query;
}

async function readData(ctx: Needs<'io'>, data: string): Promise<unknown> {
  let text = data;
  let source = '--data';
  if (data === '-') {
    text = await readStdin(ctx.io);
    source = '--data - (stdin)';
  } else if (data.startsWith('@')) {
    const file = data.slice(1);
    if (!file) throw new UsageError('--data @FILE needs a file name');
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--data ${data}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    source = `--data ${data}`;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
}

export async function runApi(ctx: Needs<'client' | 'confirm' | 'io'>, methodText: string, pathText: string, opts: ApiOptions): Promise<void> {
  const method = checkMethod(methodText);
  const path = checkPath(pathText);
  const query = parseQuery(opts.query ?? []);
  if (opts.idempotencyKey !== undefined) {
    if (method !== 'POST') throw new UsageError('--idempotency-key applies to POST requests only');
    if (!isIdempotencyKey(opts.idempotencyKey)) throw new UsageError(`--idempotency-key ${IDEMPOTENCY_KEY_RULE}`, undefined, 'invalid_idempotency_key');
  }
  const body = opts.data !== undefined ? await readData(ctx, opts.data) : undefined;
  if (method !== 'GET') await ctx.confirm.live(`Send ${method} ${sanitize(path)} with a LIVE key?`);
  const client = await ctx.client();
  const res = await client.request<unknown>(method, path, { query, body, idempotencyKey: opts.idempotencyKey });
  printJson(ctx.io, res.data);
}
