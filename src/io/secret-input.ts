// Reading secrets without argv: a hidden prompt on a TTY, or the whole of stdin.
import type { IOStreams } from './streams.js';
import { UsageError } from '../errors.js';

export async function readStdin(io: IOStreams): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export async function promptSecret(io: IOStreams, message: string, flagHint: string): Promise<string> {
  if (!io.canPrompt) throw new UsageError(`${message.replace(/:$/, '')} is required`, `no terminal to prompt on: use ${flagHint}`);
  const { password } = await import('@inquirer/prompts');
  const value = await password({ message, mask: '*' }, { input: io.stdin, output: io.stderr });
  return value.trim();
}
