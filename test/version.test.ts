// The package's name and version are read from src/version.ts (the update notice asks the
// registry about that name): they must be package.json's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME, VERSION } from '../src/version.js';

describe('src/version.ts', () => {
  it("names the package and its version as package.json does", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect({ name: PACKAGE_NAME, version: VERSION }).toEqual({ name: pkg.name, version: pkg.version });
  });
});
