// Reading secrets without argv: a hidden prompt on a TTY, or the whole of stdin.
import type { IOStreams } from './streams.js';
import type { Prompter } from './prompter.js';
import { UsageError } from '../errors.js';

export async function readStdin(io: IOStreams): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export async function promptSecret(io: IOStreams, prompter: Prompter, message: string, flagHint: string): Promise<string> {
  if (!io.canPrompt) throw new UsageError(`${message.replace(/:$/, '')} is required`, `no terminal to prompt on: use ${flagHint}`);
  return prompter.secret(message);
}
