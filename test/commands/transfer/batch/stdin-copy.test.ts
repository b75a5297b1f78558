// `transfer batch -` reads stdin twice, so it keeps a copy, and the copy holds amounts and memos
// in plaintext. No way out of the command may leave it on disk: the real binary is spawned with
// a TMPDIR of its own, its payouts piped in, and killed (SIGINT, SIGTERM, SIGKILL) at a point it
// has reached for certain: stdin read to its end and the account asked for (a scripted server
// that never answers that request), before anything is sent. Build first (npm run build).
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSvc } from '../../../helpers/run.js';
import { startScriptedServer } from '../../../helpers/scripted-server.js';

const MEMO = 'stdin-copy-secret-memo';
const AMOUNT = '4321.987654';
const INPUT = `${Array.from({ length: 50 }, (_, i) => JSON.stringify({ to: '@acme', amount: AMOUNT, memo: `${MEMO}-${i}`, ref: `S-${i}` })).join('\n')}\n`;

/** Every file under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

const EXIT = { SIGINT: 130, SIGTERM: 143, SIGKILL: null } as const;

describe('transfer batch - (stdin): killed before sending', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`${signal}: nothing of the payouts remains in TMPDIR`, async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'svc-stdin-tmp-'));
      let asked!: () => void;
      const accountAsked = new Promise<void>((resolve) => (asked = resolve));
      const server = await startScriptedServer((req) => {
        if (req.url === '/v1/accounts/me') {
          asked();
          return 'hang'; // held here: stdin has been copied, nothing has been sent
        }
        return { status: 500, body: { error: { code: 'unexpected', message: 'no other request belongs here' } } };
      });
      try {
        const run = spawnSvc(['transfer', 'batch', '-', '--jsonl'], {
          TMPDIR: tmp,
          SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-stdin-cfg-')),
          SVC_API_KEY: `svc_test_${'d'.repeat(32)}`,
          SVC_BASE_URL: server.url,
        }, { input: INPUT });
        await accountAsked;
        run.child.kill(signal);
        const exit = await run.exited;
        expect(exit.code).toBe(EXIT[signal]);
        const left = filesUnder(tmp);
        for (const f of left) expect(readFileSync(f, 'utf8'), f).not.toMatch(new RegExp(`${MEMO}|${AMOUNT.replace('.', '\\.')}`));
        expect(left).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
        expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/accounts/me']);
      } finally {
        await server.close();
      }
    }, 20_000);
  }
});
