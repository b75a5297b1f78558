// The three @inquirer prompts svc asks with, each from its own package: '@inquirer/prompts' (even
// re-exported statically) brings the editor prompt's external-editor and iconv-lite tables into
// the bundle, ~490 kB of the installed package that no command runs.
export { default as confirm } from '@inquirer/confirm';
export { default as input } from '@inquirer/input';
export { default as password } from '@inquirer/password';
