// What a person pastes where an id goes (docs/ux.md, Ids): an id a screen shortened (`…`) is
// refused as such, with the way to the whole id, instead of "not found" and a hint back to the
// list; `sandbox key revoke` is told from the KEY column (a masked key) or a key itself before
// any question, and never echoes a key. Nothing is sent for any of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { scriptedPrompter } from '../helpers/prompter.js';

describe('ids pasted back', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  const shortened = [
    [['transfer', 'get', 'tr_n8gOnwt…s5T5nESr'], 'transfer id "tr_n8gOnwt…s5T5nESr"', 'svc transfer ls'],
    [['transfer', 'get', 'tr_n8gOnwt...s5T5nESr', '--wait'], 'transfer id "tr_n8gOnwt...s5T5nESr"', 'svc transfer ls'],
    [['pending', 'get', 'txn_cj…oyrw'], 'transaction id "txn_cj…oyrw"', 'svc pending ls'],
    [['pending', 'wait', 'txn_cj…oyrw'], 'transaction id "txn_cj…oyrw"', 'svc pending ls'],
    [['pending', 'approve', 'txn_cj…oyrw'], 'transaction id "txn_cj…oyrw"', 'svc pending ls'],
    [['pending', 'reject', 'txn_cj…oyrw', '--reason', 'no'], 'transaction id "txn_cj…oyrw"', 'svc pending ls'],
    [['--yes', 'sandbox', 'key', 'revoke', 'key_Ab3…x9Zq'], 'key id "key_Ab3…x9Zq"', 'svc sandbox key ls'],
  ] as const;

  for (const [args, what, list] of shortened) {
    it(`svc ${args.join(' ')}: refused as shortened on screen (exit 2), with where the whole id is`, async () => {
      const r = await t.svc([...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const [error, hint, ...rest] = r.stderr.trimEnd().split('\n');
      expect(error).toBe(`error: ${what} was shortened on screen (it contains "${args.join(' ').includes('...') ? '...' : '…'}"): an id must be given whole (id_shortened)`);
      expect(hint).toBe(`hint: \`${list}\` shows ids whole at any width; \`${list} --json\` gives them to a script`);
      expect(rest).toEqual([]);
    });
  }

  it('a shortened id is refused in --json too, as the error object', async () => {
    const r = await t.svc(['--json', 'pending', 'approve', 'txn_cj…oyrw']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'id_shortened' });
  });

  it('pending approve and reject of a shortened id send nothing: the key makes no request', async () => {
    const requests = async () => (await t.svcJson<{ account: string; request_count: number }[]>(['sandbox', 'key', 'ls'])).find((k) => k.account === '@alice')!.request_count;
    const before = await requests();
    expect((await t.svc(['pending', 'approve', 'txn_cj…oyrw'])).code).toBe(2);
    expect((await t.svc(['pending', 'reject', 'txn_cj…oyrw'])).code).toBe(2);
    expect(await requests()).toBe(before);
  });

  describe('sandbox key revoke', () => {
    const terminal = (answers: boolean[]) => {
      const prompter = scriptedPrompter(answers);
      return { prompter, opts: { env: t.env, tty: { stdin: true, stdout: true, stderr: true }, prompter } };
    };

    it('a masked key (the KEY column) is refused before any question, named as such (exit 2)', async () => {
      const { prompter, opts } = terminal([true]);
      const r = await runCli(['sandbox', 'key', 'revoke', 'svc_test_****6kS8'], opts);
      expect(prompter.asked).toEqual([]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('error: key id "svc_test_****6kS8" is a masked API key (the KEY column), not a key id (invalid_argument)');
      expect(r.stderr).toContain('hint: revoke takes the KEY ID column of `svc sandbox key ls` (key_…)');
    });

    it('the same without a terminal: the masked key is named, not a missing confirmation', async () => {
      const r = await t.svc(['sandbox', 'key', 'revoke', 'svc_test_****6kS8']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is a masked API key');
      expect(r.stderr).not.toContain('confirmation');
    });

    it('a whole API key is refused before any question and never echoed; nothing is revoked', async () => {
      const key = t.keyOf('@bob');
      const { prompter, opts } = terminal([true]);
      const r = await runCli(['sandbox', 'key', 'revoke', key], opts);
      expect(prompter.asked).toEqual([]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('error: key id is an API key itself, not its id (it was not sent) (invalid_argument)');
      expect(`${r.stdout}${r.stderr}`).not.toContain(key);
      const forced = await t.svc(['--yes', 'sandbox', 'key', 'revoke', key]);
      expect(forced.code).toBe(2);
      expect(`${forced.stdout}${forced.stderr}`).not.toContain(key);
      expect((await t.svc(['account'], { env: { SVC_API_KEY: key } })).code).toBe(0); // still works
    });
  });
});
