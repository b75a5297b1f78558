import type { ChildProcess } from 'node:child_process';

export interface SandboxProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Sends a signal (unless it already exited) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnSandboxProcess(bin: string, argv: string[], env: Record<string, string>, opts?: { echoStderr?: boolean; node?: string | null }): Promise<SandboxProcess>;
