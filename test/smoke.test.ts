// Smoke tests of the real binary (bin/svc.js over the built dist/): what only a separate process
// shows. Everything else runs main() in-process (test/helpers/cli.ts).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN } from './helpers/run.js';

function spawnWithStdout(args: string[], stdout: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', stdout, 'pipe'], env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('the real binary', () => {
  it('an unwritable stdout is output_error (exit 1), in both modes', async () => {
    const readOnly = openSync('/dev/null', 'r'); // writing to it fails with EBADF
    const plain = await spawnWithStdout(['help'], readOnly);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe('error: cannot write to stdout: EBADF (output_error)\n');
    const json = await spawnWithStdout(['--json', 'help'], readOnly);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'output_error', message: 'cannot write to stdout: EBADF' } });
  });
});
