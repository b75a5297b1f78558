// `svc profile add|ls|use|rm|show`, key checks, where the key and base URL come from
// (flag > environment > current profile), and the config files' permissions.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type RunOptions, type TestSandbox } from '../../helpers/e2e.js';
import { svcIn } from '../../helpers/cli.js';
import { PROFILE_NAME_RE } from '../../../src/config/profile-name.js';
import { refusedPort, startScriptedServer } from '../../helpers/scripted-server.js';

const TEST_KEY = 'svc_test_Pr0fileTestKeyAbCdEf123456';
const LIVE_KEY = 'svc_live_Pr0fileLiveKeyZyXwVu987654';
const masked = (key: string) => `${key.slice(0, 9)}****${key.slice(-4)}`;
const mode = (path: string) => statSync(path).mode & 0o777;

describe('profile add / ls / use / rm / show', () => {
  let dir: string;
  const svc = (args: string[], opts: RunOptions = {}) => svcIn(args, { SVC_CONFIG_DIR: dir, NO_COLOR: '1' }, opts);
  const noSecrets = (...outs: string[]) => {
    for (const out of outs) {
      expect(out).not.toContain(TEST_KEY);
      expect(out).not.toContain(LIVE_KEY);
    }
  };

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'svc-e2e-profile-')), 'config');
  });
  afterEach(() => {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  // These keys belong to no service: the profiles are saved with --no-verify (checking the key
  // against the service is covered with the sandbox below).
  it('adds a profile from --key-stdin, lists it masked, never shows the key', async () => {
    const add = await svc(['profile', 'add', 'work', '--key-stdin', '--no-verify', '--base-url', 'https://api.example.com'], { input: `${TEST_KEY}\n` });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toBe('');
    expect(add.stderr).toBe(`[TEST] profile "work" saved (key not checked: --no-verify) (${masked(TEST_KEY)}, https://api.example.com), now current\n`);

    // A live key has no default base URL: it names its service's https:// URL.
    const live = await svc(['profile', 'add', 'prod', '--key-stdin', '--no-verify', '--base-url', 'https://live.example.com'], { input: `${LIVE_KEY}\r\nignored second line\n` });
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr).toBe(`[LIVE] profile "prod" saved (key not checked: --no-verify) (${masked(LIVE_KEY)}, https://live.example.com)\n`);

    const ls = await svc(['profile', 'ls']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toBe([
      'current\tname\tenvironment\tapi_key\tbase_url',
      `false\tprod\tlive\t${masked(LIVE_KEY)}\thttps://live.example.com`,
      `true\twork\ttest\t${masked(TEST_KEY)}\thttps://api.example.com`,
      '',
    ].join('\n'));
    const json = await svc(['--json', 'profile', 'ls']);
    // No decryption key: the field is absent (never null).
    expect(JSON.parse(json.stdout)).toStrictEqual([
      { name: 'prod', current: false, environment: 'live', api_key: masked(LIVE_KEY), base_url: 'https://live.example.com' },
      { name: 'work', current: true, environment: 'test', api_key: masked(TEST_KEY), base_url: 'https://api.example.com' },
    ]);
    noSecrets(add.stdout, add.stderr, live.stdout, live.stderr, ls.stdout, ls.stderr, json.stdout, json.stderr);
    // The key itself is stored (0600), for the commands that use it.
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(TEST_KEY);
  });

  it('takes the key from SVC_API_KEY when there is no terminal and no --key-stdin', async () => {
    const add = await svc(['profile', 'add', 'ci', '--no-verify'], { env: { SVC_API_KEY: TEST_KEY } });
    expect(add.code, add.stderr).toBe(0);
    const show = await svc(['--json', 'profile', 'show', 'ci']);
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'ci', api_key: masked(TEST_KEY) });
  });

  it('without a terminal or a key source, add fails with a hint', async () => {
    const r = await svc(['profile', 'add', 'x']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: API key is required (invalid_argument)\nhint: no terminal to prompt on: use --key-stdin or SVC_API_KEY\n');
  });

  it('use switches the current profile; show prints it masked', async () => {
    expect((await svc(['profile', 'add', 'one', '--key-stdin', '--no-verify'], { input: TEST_KEY })).code).toBe(0);
    expect((await svc(['profile', 'add', 'two', '--key-stdin', '--no-verify', '--base-url', 'https://live.example.com'], { input: LIVE_KEY })).code).toBe(0);
    const use = await svc(['profile', 'use', 'two']);
    expect(use.code).toBe(0);
    expect(use.stderr).toBe('now using profile "two"\n');
    const show = await svc(['profile', 'show']);
    expect(show.code).toBe(0);
    expect(show.stdout).toBe([
      'name\ttwo', 'current\ttrue', 'environment\tlive', `api_key\t${masked(LIVE_KEY)}`,
      'base_url\thttps://live.example.com', 'base_url_source\tprofile', 'decryption_key\tnot set', `secrets\t${join(dir, 'config.json')} (mode 0600)`, '',
    ].join('\n'));
    const showOne = await svc(['--json', 'profile', 'show', 'one']);
    expect(JSON.parse(showOne.stdout)).toMatchObject({ name: 'one', current: false, environment: 'test' });
    noSecrets(show.stdout, showOne.stdout);

    const missing = await svc(['profile', 'use', 'three']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe('error: profile "three" does not exist (profile_not_found)\nhint: run `svc profile ls`\n');
    expect((await svc(['profile', 'show', 'three'])).code).toBe(4);
  });

  it('rm needs --yes without a terminal, and removes with it', async () => {
    expect((await svc(['profile', 'add', 'temp', '--key-stdin', '--no-verify'], { input: TEST_KEY })).code).toBe(0);
    const refused = await svc(['profile', 'rm', 'temp']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe('error: Remove profile "temp" and its stored keys: confirmation required (confirmation_required)\nhint: there is no terminal to ask on (or --no-input was given): pass --yes to confirm\n');
    const refusedJson = await svc(['--json', 'profile', 'rm', 'temp']);
    expect(refusedJson.code).toBe(2);
    expect(refusedJson.stdout).toBe('');
    expect(JSON.parse(refusedJson.stderr)).toMatchObject({ error: { code: 'confirmation_required' } });
    expect(JSON.parse((await svc(['--json', 'profile', 'ls'])).stdout)).toHaveLength(1);

    const removed = await svc(['--yes', 'profile', 'rm', 'temp']);
    expect(removed.code).toBe(0);
    expect(removed.stderr).toBe('removed profile "temp"\n');
    expect(JSON.parse((await svc(['--json', 'profile', 'ls'])).stdout)).toEqual([]);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(TEST_KEY);
    expect((await svc(['--yes', 'profile', 'rm', 'temp'])).code).toBe(4);

    const show = await svc(['profile', 'show']);
    expect(show.code).toBe(4);
    expect(show.stderr).toMatch(/^error: no current profile \(profile_not_found\)\n/);
  });

  it('an empty list is the TSV header alone (piped) or [] (--json), exit 0', async () => {
    const ls = await svc(['profile', 'ls']);
    expect(ls).toMatchObject({ code: 0, stdout: 'current\tname\tenvironment\tapi_key\tbase_url\n' });
    expect((await svc(['--json', 'profile', 'ls'])).stdout).toBe('[]\n');
  });

  // A malformed key is an unusable key (exit 3, invalid_api_key), refused locally: nothing is sent.
  const badKeys: Array<[string, string, RegExp]> = [
    ['an unknown prefix', 'sk_live_abcdefghijklmnopqrstuvwx', /^error: API key must start with svc_live_ or svc_test_; nothing was saved \(invalid_api_key\)\n/],
    ['a stripe-like test key', 'pk_test_abcdefghijklmnopqrstuvwx', /^error: API key must start with svc_live_ or svc_test_; nothing was saved \(invalid_api_key\)\n/],
    ['a key that is too short', 'svc_test_abc123', /^error: API key must be svc_live_ or svc_test_ followed by 16 to 128 letters or digits; nothing was saved \(invalid_api_key\)\n/],
    ['a key with symbols', 'svc_test_abcdefghijklmnop-qrstu', /^error: API key must be svc_live_ or svc_test_ followed by .* \(invalid_api_key\)\n/],
  ];
  it.each(badKeys)('refuses %s', async (_name, key, message) => {
    const server = await startScriptedServer(() => ({ status: 200, body: {} }));
    try {
      const r = await svc(['--base-url', server.url, 'profile', 'add', 'bad', '--key-stdin'], { input: `${key}\n` });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
      expect(r.stderr).toMatch(/^hint: /m);
      expect(r.stderr).not.toContain(key);
      const j = await svc(['--json', '--base-url', server.url, 'profile', 'add', 'bad', '--key-stdin'], { input: `${key}\n` });
      expect(j.code).toBe(3);
      expect(j.stdout).toBe('');
      expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect(j.stderr).not.toContain(key);
      expect(server.requests).toHaveLength(0);
      expect(JSON.parse((await svc(['--json', 'profile', 'ls'])).stdout)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('refuses a bad key in SVC_API_KEY before sending anything', async () => {
    const server = await startScriptedServer(() => ({ status: 200, body: {} }));
    try {
      const r = await svc(['account'], { env: { SVC_API_KEY: 'sk_live_abcdefghijklmnopqrstuvwx', SVC_BASE_URL: server.url } });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: SVC_API_KEY must start with svc_live_ or svc_test_ \(invalid_api_key\)\nhint: [^\n]+\n$/);
      expect(r.stderr).not.toContain('sk_live_abcdefghijklmnopqrstuvwx');
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('refuses an empty stdin, a bad name and a plain-HTTP remote base URL', async () => {
    const empty = await svc(['profile', 'add', 'x', '--key-stdin'], { input: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('error: API key: nothing was read from stdin (invalid_argument)\n');
    const name = await svc(['profile', 'add', 'bad name!', '--key-stdin'], { input: TEST_KEY });
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/^error: profile name "bad name!" is invalid: .* \(invalid_profile_name\)\n$/);
    const http = await svc(['profile', 'add', 'x', '--key-stdin', '--base-url', 'http://api.example.com'], { input: TEST_KEY });
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/^error: refusing to send an API key over plain HTTP to api\.example\.com \(insecure_base_url\)\nhint: /);
    expect(JSON.parse((await svc(['--json', 'profile', 'ls'])).stdout)).toEqual([]);
  });

  it('a live key without --base-url, or with a plain-http one (loopback too), is refused at add time and changes nothing', async () => {
    expect((await svc(['profile', 'add', 'prod', '--key-stdin', '--no-verify', '--base-url', 'https://live.example.com'], { input: LIVE_KEY })).code).toBe(0);
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const server = await startScriptedServer(() => ({ status: 200, body: {} }));
    try {
      const cases: Array<[string[], RegExp]> = [
        [[], /^error: a live API key has no default base URL: give the service's https:\/\/ URL with --base-url; nothing was saved \(base_url_required\)\nhint: /],
        [['--base-url', server.url], /^error: refusing to send a live API key over plain HTTP to 127\.0\.0\.1:\d+ \(from --base-url\): .*; nothing was saved \(insecure_base_url\)\nhint: /],
        [['--base-url', 'http://localhost:46630'], /\(insecure_base_url\)\n/],
      ];
      for (const [flags, message] of cases) {
        for (const verify of [[], ['--no-verify']]) {
          const r = await svc(['profile', 'add', 'prod', '--key-stdin', ...verify, ...flags], { input: LIVE_KEY });
          expect(r.code).toBe(2);
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(message);
          noSecrets(r.stderr);
        }
      }
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    // A test key keeps the sandbox's default.
    const test = await svc(['profile', 'add', 'dev', '--key-stdin', '--no-verify'], { input: TEST_KEY });
    expect(test.stderr).toContain(', http://127.0.0.1:46630)');
  });

  it('creates the config directory 0700 and config.json 0600', async () => {
    const add = await svc(['profile', 'add', 'p', '--key-stdin', '--no-verify'], { input: TEST_KEY });
    expect(add.code, add.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('tightens a config left with loose permissions', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ current: 'old', profiles: { old: { apiKey: TEST_KEY, baseUrl: 'https://api.example.com' } } }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const ls = await svc(['--json', 'profile', 'ls']);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)).toHaveLength(1);
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });
});

// Profiles are data: a name is looked up as a key of the file, never as a property inherited
// from Object.prototype. `constructor` and `toString` are ordinary names; `__proto__` breaks the
// name rule for `profile add`, but a hand-edited config.json may hold it, and it works the same.
describe('profile names that are Object.prototype keys', () => {
  let dir: string;
  const svc = (args: string[], opts: RunOptions = {}) => svcIn(args, { SVC_CONFIG_DIR: dir, NO_COLOR: '1' }, opts);
  const file = () => join(dir, 'config.json');
  const names = async () => (JSON.parse((await svc(['--json', 'profile', 'ls'])).stdout) as Array<{ name: string }>).map((p) => p.name);
  const PROTO_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'svc-e2e-proto-')), 'config');
  });
  afterEach(() => {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it.each(PROTO_NAMES)('when there is no profile "%s": show, use and rm say so (exit 4) and change nothing', async (name) => {
    expect((await svc(['profile', 'add', 'work', '--key-stdin', '--no-verify'], { input: TEST_KEY })).code).toBe(0);
    const before = readFileSync(file(), 'utf8');
    for (const argv of [['profile', 'show', name], ['profile', 'use', name], ['--yes', 'profile', 'rm', name], ['--profile', name, 'profile', 'show']]) {
      const r = await svc(argv);
      expect([r.code, r.stdout, r.stderr], argv.join(' ')).toEqual([4, '', `error: profile "${name}" does not exist (profile_not_found)\nhint: run \`svc profile ls\`\n`]);
    }
    const account = await svc(['--profile', name, 'account']);
    expect(account.code).toBe(4);
    expect(account.stderr.split('\n')[0]).toBe(`error: profile "${name}" does not exist (profile_not_found)`);
    expect(readFileSync(file(), 'utf8')).toBe(before);
    expect(JSON.parse((await svc(['--json', 'profile', 'show'])).stdout)).toMatchObject({ name: 'work', current: true });
  });

  it.each(PROTO_NAMES)('a profile named "%s" lists, shows, becomes current and is removed like any other', async (name) => {
    expect((await svc(['profile', 'add', 'work', '--key-stdin', '--no-verify', '--base-url', 'https://api.example.com'], { input: TEST_KEY })).code).toBe(0);
    const add = await svc(['profile', 'add', name, '--key-stdin', '--no-verify', '--base-url', 'https://live.example.com'], { input: LIVE_KEY });
    if (PROFILE_NAME_RE.test(name)) {
      expect(add.code, add.stderr).toBe(0);
    } else {
      // `profile add` refuses it by the name rule; a config.json edited by hand may hold it all the same.
      expect(add.code).toBe(2);
      expect(add.stderr).toMatch(/^error: profile name "__proto__" is invalid: .* \(invalid_profile_name\)\n$/);
      writeFileSync(file(), `{"current":"work","profiles":{"work":{"apiKey":"${TEST_KEY}","baseUrl":"https://api.example.com"},"${name}":{"apiKey":"${LIVE_KEY}","baseUrl":"https://live.example.com"}}}`, { mode: 0o600 });
    }
    expect(await names()).toEqual(['work', name].sort((a, b) => a.localeCompare(b)));
    const show = await svc(['--json', 'profile', 'show', name]);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toEqual({ name, current: false, environment: 'live', api_key: masked(LIVE_KEY), base_url: 'https://live.example.com', base_url_source: 'profile', secrets: 'file' });
    const viaFlag = await svc(['--json', '--profile', name, 'profile', 'show']);
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({ name, api_key: masked(LIVE_KEY) });

    const use = await svc(['profile', 'use', name]);
    expect([use.code, use.stderr]).toEqual([0, `now using profile "${name}"\n`]);
    expect(JSON.parse((await svc(['--json', 'profile', 'show'])).stdout)).toMatchObject({ name, current: true });
    // A change to another profile keeps it, and keeps it current.
    expect((await svc(['profile', 'add', 'other', '--key-stdin', '--no-verify'], { input: TEST_KEY })).code).toBe(0);
    expect(await names()).toEqual(['other', 'work', name].sort((a, b) => a.localeCompare(b)));
    expect(JSON.parse((await svc(['--json', 'profile', 'show'])).stdout)).toMatchObject({ name, current: true });

    const rm = await svc(['--yes', 'profile', 'rm', name]);
    expect([rm.code, rm.stderr]).toEqual([0, `removed profile "${name}"\n`]);
    expect(await names()).toEqual(['other', 'work']);
    expect(readFileSync(file(), 'utf8')).not.toContain(LIVE_KEY);
    const again = await svc(['--yes', 'profile', 'rm', name]);
    expect(again.code).toBe(4);
    const show2 = await svc(['profile', 'show']);
    expect(show2.code).toBe(4);
    expect(show2.stderr).toMatch(/^error: no current profile \(profile_not_found\)\n/);
  });
});

describe('precedence: flag > environment > current profile', () => {
  let t: TestSandbox;
  let deadUrl: string;
  const handle = async (args: string[], env: Record<string, string> = {}) => {
    const r = await t.svc(['--json', ...args, 'account'], { env });
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { handle: string }).handle;
  };

  beforeAll(async () => {
    t = await startTestSandbox();
    deadUrl = `http://127.0.0.1:${await refusedPort()}`;
    for (const [name, who] of [['bobp', '@bob'], ['acmep', '@acme']] as const) {
      const r = await t.svc(['--base-url', t.url, 'profile', 'add', name, '--key-stdin'], { input: t.keyOf(who) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`[TEST] profile "${name}" saved for ${who} (${masked(t.keyOf(who))}, ${t.url})\n`);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the current profile is used by default', async () => {
    expect(await handle([])).toBe('@alice');
  });

  it('profile add checks the key against the service: a refused key is exit 3, an unreachable one exit 7, nothing saved', async () => {
    const profiles = async () => (JSON.parse((await t.svc(['--json', 'profile', 'ls'])).stdout) as Array<{ name: string }>).map((x) => x.name).sort();
    const before = await profiles();
    const unknownKey = 'svc_test_NotAKeyOfThisSandbox00001';
    const refused = await t.svc(['--base-url', t.url, 'profile', 'add', 'refused', '--key-stdin'], { input: `${unknownKey}\n` });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^error: the service refused this API key: .*; nothing was saved \(unauthorized, request req_\w+\)\nhint: /);
    expect(refused.stderr).not.toContain(unknownKey);
    const down = await t.svc(['--base-url', deadUrl, 'profile', 'add', 'down', '--key-stdin'], { input: `${unknownKey}\n` });
    expect(down.code).toBe(7);
    expect(down.stdout).toBe('');
    expect(down.stderr).toMatch(/^error: could not check the API key: .*; nothing was saved \(network_error\)\nhint: .*--no-verify/);
    expect(await profiles()).toEqual(before);
    const offline = await t.svc(['--base-url', deadUrl, 'profile', 'add', 'down', '--key-stdin', '--no-verify'], { input: `${unknownKey}\n` });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toMatch(/profile "down" saved \(key not checked: --no-verify\)/);
    expect(await profiles()).toEqual([...before, 'down'].sort());
    expect((await t.svc(['--yes', 'profile', 'rm', 'down'])).code).toBe(0);
  });

  it('SVC_PROFILE beats the current profile; --profile beats SVC_PROFILE', async () => {
    expect(await handle([], { SVC_PROFILE: 'bobp' })).toBe('@bob');
    expect(await handle(['--profile', 'acmep'], { SVC_PROFILE: 'bobp' })).toBe('@acme');
    expect(await handle(['-p', 'sandbox'], { SVC_PROFILE: 'bobp' })).toBe('@alice');
  });

  it('SVC_API_KEY beats the current profile; --profile beats SVC_API_KEY', async () => {
    expect(await handle([], { SVC_API_KEY: t.keyOf('@acme') })).toBe('@acme');
    expect(await handle(['--profile', 'bobp'], { SVC_API_KEY: t.keyOf('@acme') })).toBe('@bob');
  });

  it('SVC_BASE_URL beats the profile base URL; --base-url beats SVC_BASE_URL', async () => {
    const viaEnv = await t.svc(['account'], { env: { SVC_BASE_URL: deadUrl } });
    expect(viaEnv.code).toBe(7);
    expect(viaEnv.stderr).toMatch(/^error: could not connect to 127\.0\.0\.1:\d+ \(connection refused\) \(network_error\)\n/);
    expect(await handle(['--base-url', t.url], { SVC_BASE_URL: deadUrl })).toBe('@alice');
    const viaFlag = await t.svc(['--base-url', deadUrl, 'account']);
    expect(viaFlag.code).toBe(7);
  });

  it('a profile named by flag or environment must exist', async () => {
    const env = await t.svc(['account'], { env: { SVC_PROFILE: 'nope' } });
    expect(env.code).toBe(4);
    expect(env.stdout).toBe('');
    expect(env.stderr).toBe('error: profile "nope" does not exist (profile_not_found)\nhint: run `svc profile ls` to see your profiles\n');
    const flag = await t.svc(['--profile', 'nope', 'account']);
    expect(flag.code).toBe(4);
    expect(flag.stderr).toBe(env.stderr);
    const json = await t.svc(['--json', '--profile', 'nope', 'account']);
    expect(json.code).toBe(4);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'profile_not_found' } });
  });

  it('no key anywhere → exit 3 with a hint', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-e2e-nokey-'));
    try {
      const r = await svcIn(['account'], { SVC_CONFIG_DIR: empty });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: no API key configured \(no_api_key\)\nhint: .*svc sandbox start/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
