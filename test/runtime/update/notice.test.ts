// The update notice, against a local fake registry (a scripted HTTP server answering
// GET /<package name> as the npm registry does). In-process runs (main() with an injected clock and
// an in-process check) for what is shown when; a spawned svc under a terminal for the one thing
// that is between processes: a registry that never answers does not hold the command's exit.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { checkRegistry, packagePath, registryUrl } from '../../../src/runtime/update/check.js';
import { PACKAGE_NAME, VERSION } from '../../../src/version.js';
import { runCli } from '../../helpers/cli.js';
import { HAS_SCRIPT, spawnInTty } from '../../helpers/run.js';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

const HOUR = 60 * 60 * 1000;
const GLOBAL_INSTALL = `/usr/local/lib/node_modules/${PACKAGE_NAME}/dist/bundle/svc.js`;
const NOTICE = `A new release of svc is available: ${VERSION} → 9.0.0\nTo upgrade: npm install -g ${PACKAGE_NAME}@latest\n`;

let configDir: string;
let registry: ScriptedServer;
let latest = '9.0.0';
let t = Date.UTC(2030, 0, 1, 9);
const clock: Clock = { now: () => t, sleep: async () => {} };

beforeEach(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-update-'));
  latest = '9.0.0';
  registry = await startScriptedServer((req) =>
    req.url === `/${packagePath(PACKAGE_NAME)}` ? { status: 200, body: { name: PACKAGE_NAME, 'dist-tags': { latest } } } : { status: 404, body: {} });
});
afterEach(async () => {
  await registry.close();
  rmSync(configDir, { recursive: true, force: true });
});

const baseEnv = () => ({ SVC_CONFIG_DIR: configDir, SVC_UPDATE_REGISTRY: registry.url, NO_COLOR: '1' });

/** One run of `svc profile ls` (no network of its own) on a terminal; the check, if started, runs in-process. */
async function run(opts: { env?: Readonly<Record<string, string | undefined>>; stderrTty?: boolean; args?: readonly string[] } = {}) {
  const checks: Array<Promise<void>> = [];
  const env = { ...baseEnv(), ...opts.env };
  const r = await runCli(opts.args ?? ['profile', 'ls'], {
    env,
    tty: { stderr: opts.stderrTty ?? true },
    clock,
    modulePath: GLOBAL_INSTALL,
    launchUpdateCheck: () => void checks.push(checkRegistry(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv)),
  });
  await Promise.all(checks);
  return { ...r, checks: checks.length };
}

describe('update notice', () => {
  it('asks the fake registry in the background, shows the news on a later run, at most once a day', async () => {
    const first = await run();
    expect(first.code).toBe(0);
    expect(first.checks).toBe(1);
    expect(registry.requests.map((r) => r.url)).toEqual([`/${packagePath(PACKAGE_NAME)}`]);
    expect(first.stderr).not.toContain('new release');

    t += HOUR;
    const second = await run();
    expect(second.stderr.endsWith(`\n${NOTICE}`)).toBe(true);
    expect(second.checks).toBe(0); // checked an hour ago

    t += 2 * HOUR;
    const sameDay = await run();
    expect(sameDay.stderr).not.toContain('new release');
    expect(sameDay.checks).toBe(0);

    t += 24 * HOUR;
    const nextDay = await run();
    expect(nextDay.stderr).toContain(NOTICE);
    expect(nextDay.checks).toBe(1);
    expect(registry.requests).toHaveLength(2);
  });

  it('says nothing when the registry has no newer release (the same, an older one, a prerelease of this one)', async () => {
    for (const v of [VERSION, '0.0.1', `${VERSION}-rc.1`, 'not-a-version']) {
      latest = v;
      rmSync(join(configDir, 'update-check.json'), { force: true });
      await run();
      t += HOUR;
      expect((await run()).stderr, v).not.toContain('new release');
    }
  });

  it('shows only a version of sane length: a 256-character "version" (valid semver), a v-prefixed one, build metadata, or a cache holding one: nothing shown', async () => {
    const long = `9.0.0-${'a'.repeat(250)}`;
    for (const v of [long, 'v9.0.0', '9.0.0+build.5', '9999999.0.0', `9.0.0-${'x'.repeat(21)}`]) {
      latest = v;
      rmSync(join(configDir, 'update-check.json'), { force: true });
      await run();
      t += HOUR;
      expect((await run()).stderr, v).not.toContain('new release');
      expect(existsSync(join(configDir, 'update-check.json')) ? readFileSync(join(configDir, 'update-check.json'), 'utf8') : '', v).not.toContain(v);
    }
    // A cache written by someone else, holding one: not shown either.
    writeFileSync(join(configDir, 'update-check.json'), JSON.stringify({ checked_at: t, latest: long }), { mode: 0o600 });
    t += HOUR;
    expect((await run()).stderr).not.toContain('new release');
    // A sane one is still announced.
    latest = '9.0.0-rc.2';
    rmSync(join(configDir, 'update-check.json'), { force: true });
    await run();
    t += HOUR;
    expect((await run()).stderr).toContain(`→ 9.0.0-rc.2`);
  });

  it.each([
    ['CI is set', { env: { CI: 'true' } }],
    ['stderr is not a terminal', { stderrTty: false }],
    ['--json', { args: ['--json', 'profile', 'ls'] }],
    ['SVC_NO_UPDATE_NOTIFIER is set', { env: { SVC_NO_UPDATE_NOTIFIER: '1' } }],
  ] as const)('is silent, and asks nothing, when %s', async (_name, opts) => {
    // A newer release is already known: only the rule keeps the notice away.
    writeFileSync(join(configDir, 'update-check.json'), JSON.stringify({ checked_at: t - 30 * 24 * HOUR, latest: '9.0.0' }), { mode: 0o600 });
    t += HOUR;
    const r = await run(opts);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('new release');
    expect(r.checks).toBe(0);
    expect(registry.requests).toHaveLength(0);
    // The same run on a terminal without the rule would have shown it.
    expect((await run()).stderr).toContain(NOTICE);
  });

  it("the registry comes from SVC_UPDATE_REGISTRY, else npm's npm_config_registry; a scoped name is escaped as npm does", async () => {
    expect(registryUrl({ SVC_UPDATE_REGISTRY: 'http://127.0.0.1:1/r', npm_config_registry: 'http://x/' })).toBe('http://127.0.0.1:1/r/');
    expect(registryUrl({ npm_config_registry: 'https://npm.example/' })).toBe('https://npm.example/');
    expect(registryUrl({})).toBe('https://registry.npmjs.org/');
    expect(packagePath('@acme/svc')).toBe('@acme%2Fsvc');
    await checkRegistry({ SVC_CONFIG_DIR: configDir, npm_config_registry: registry.url }, '@acme/svc');
    expect(registry.requests.map((r) => r.url)).toEqual(['/@acme%2Fsvc']);
    expect(registry.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe.skipIf(!HAS_SCRIPT)('update check of the installed program', () => {
  it("does not delay the command's exit: svc exits while the registry still holds the request", async () => {
    let asked!: () => void;
    const requested = new Promise<void>((resolve) => (asked = resolve));
    const hanging = await startScriptedServer(() => {
      asked();
      return 'hang';
    });
    try {
      const tty = spawnInTty(['profile', 'ls'], { SVC_CONFIG_DIR: configDir, SVC_UPDATE_REGISTRY: hanging.url, SVC_NO_UPDATE_NOTIFIER: undefined, NO_COLOR: '1' });
      const { code } = await tty.exited;
      expect(code).toBe(0);
      // The check was started (by a process of its own) and the registry has not answered it.
      await requested;
      expect(hanging.requests).toHaveLength(1);
      expect(JSON.parse(readFileSync(join(configDir, 'update-check.json'), 'utf8'))).not.toHaveProperty('latest');
    } finally {
      await hanging.close();
    }
    expect(existsSync(join(configDir, 'update-check.json'))).toBe(true);
  });
});
