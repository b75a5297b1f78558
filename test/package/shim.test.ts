// bin/svc.js before anything else of svc loads: too old a Node is one line and exit 1; a package
// without its bundle says it is broken (even to --version); the package's promises stay in step
// with the code (engines, version, the one runtime dependency).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript without types (it must parse on old Node versions)
import { MIN_NODE, nodeTooOld } from '../../bin/check-node.js';
import { MIN_NODE as DOCTOR_MIN_NODE } from '../../src/commands/doctor/local.js';
import { VERSION } from '../../src/version.js';
import { BIN, ROOT } from '../helpers/run.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; engines: { node: string }; dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };
const tooOld = nodeTooOld as (version: string) => string | null;

describe('the Node.js version check (bin/check-node.js)', () => {
  it('names the version svc needs, in one line, for a Node older than engines', () => {
    expect(tooOld('18.20.4')).toBe('svc needs Node.js 20.19 or newer; this is Node.js 18.20.4\n');
    expect(tooOld('20.18.3')).toBe('svc needs Node.js 20.19 or newer; this is Node.js 20.18.3\n');
    expect(tooOld('16.0.0')).not.toBeNull();
    expect(tooOld('9.11.2')).not.toBeNull();
  });

  it('lets engines and newer through', () => {
    for (const v of ['20.19.0', '20.20.2', '21.0.0', '22.1.0', '24.11.1', '100.0.0']) expect(tooOld(v), v).toBeNull();
  });

  it('uses the floor of package.json engines, as svc doctor does', () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE as string}`);
    expect(MIN_NODE).toBe(DOCTOR_MIN_NODE);
  });

  it('runs before anything else: a process whose Node says 18.20.4 gets the line and exit 1, for any command', () => {
    // The only honest way to be an old Node in a child: a preload that rewrites process.versions.node.
    const preload = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'18.20.4'})`;
    for (const args of [['--version'], ['sandbox', 'start', '--port', '0', '--ephemeral'], ['help']]) {
      const r = spawnSync(process.execPath, ['--import', preload, BIN, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' } });
      expect(r.stderr, args.join(' ')).toBe('svc needs Node.js 20.19 or newer; this is Node.js 18.20.4\n');
      expect(r.stdout).toBe('');
      expect(r.status).toBe(1);
    }
  });
});

describe('the shim and the bundle', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('--version answers from the code that runs (the bundle), not from a package.json beside it', () => {
    expect(VERSION).toBe(pkg.version);
    const dir = mkdtempSync(join(tmpdir(), 'svc-version-'));
    dirs.push(dir);
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist/bundle'), join(dir, 'dist/bundle'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version: '9.9.9' }));
    const r = spawnSync(process.execPath, [join(dir, 'bin/svc.js'), '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(r.stdout).toBe(`${VERSION}\n`);
    expect(r.status).toBe(0);
  });

  it('a package without its bundle says so, even to --version, and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-nobundle-'));
    dirs.push(dir);
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    for (const args of [['--version'], ['--help'], ['account']]) {
      const r = spawnSync(process.execPath, [join(dir, 'bin/svc.js'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr).toBe('svc: this installation is incomplete (dist/bundle/svc.cjs is missing): reinstall svc, or in a checkout run `npm run build`\n');
      expect(r.status).toBe(1);
    }
  });

  it('the only runtime dependencies are what the bundle leaves out (libsql; @napi-rs/keyring, optional: native modules)', () => {
    expect(Object.keys(pkg.dependencies)).toEqual(['libsql']);
    expect(Object.keys(pkg.optionalDependencies ?? {})).toEqual(['@napi-rs/keyring']);
    const bundler = readFileSync(join(ROOT, 'scripts/bundle.mjs'), 'utf8');
    expect(/const NATIVE = \[([^\]]*)\]/.exec(bundler)?.[1]).toBe("'libsql', '@napi-rs/keyring'");
    expect(bundler).toContain('external: NATIVE,');
  });
});
