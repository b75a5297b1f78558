// cli-table3 and string-width, required on first use: loading them costs ~7 ms, and only a table on
// a terminal needs them. A require() made by createRequire is not something a bundler follows, so
// the bundle replaces this module (scripts/bundle.mjs) by one that requires the same packages from
// a file of their own beside the chunks (dist/bundle/table-libs.cjs).
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';
import type stringWidthFn from 'string-width';

const require = createRequire(import.meta.url);

export const cliTable3 = (): typeof CliTable3 => require('cli-table3') as typeof CliTable3;
export const stringWidth = (): typeof stringWidthFn => require('string-width') as typeof stringWidthFn;
