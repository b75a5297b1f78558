// `svc profile add|ls|use|rm|migrate|set|show`: named API keys and base URLs; secrets in the OS keyring or 0600.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerProfile(program: Command, deps: ProgramDeps): void {
  const profile = program.command('profile').description('Manage profiles (API key, base URL, decryption key)');

  profile
    .command('add <name>')
    .description('Add or replace a profile; the key is read from a hidden prompt or stdin, never argv')
    .option('--key-stdin', 'read the API key from the first line of stdin')
    .option('--decryption-key-stdin', 'read the decryption key from stdin (the line after the API key with --key-stdin)')
    .option('--use', 'make it the current profile')
    .option('--no-verify', 'save without asking the service whether the key works (offline set-up)')
    .addHelpText('after', helpFooter([
      '',
      'Examples:',
      '  $ svc profile add work                       # prompts for the key, checks it, shows its @handle',
      '  $ printenv SVC_KEY | svc profile add ci --key-stdin --base-url https://api.example.com',
      '  $ printf "%s\\n%s\\n" "$API_KEY" "$DECRYPTION_KEY" | svc profile add me --key-stdin --decryption-key-stdin',
    ]))
    .action(async (name: string, _opts, cmd: Command) => {
      const { addProfile } = await import('./add.js');
      await addProfile(deps.factory(cmd), name, cmd.opts());
    });

  profile
    .command('ls')
    .alias('list')
    .description('List profiles with masked keys; the current one is marked')
    .action(async (_opts, cmd: Command) => {
      const { listProfiles } = await import('./ls.js');
      await listProfiles(deps.factory(cmd));
    });

  profile
    .command('use <name>')
    .description('Make a profile the current one')
    .action(async (name: string, _opts, cmd: Command) => {
      const { useProfile } = await import('./use.js');
      await useProfile(deps.factory(cmd), name);
    });

  profile
    .command('rm <name>')
    .alias('remove')
    .description('Remove a profile and the secrets stored with it')
    .action(async (name: string, _opts, cmd: Command) => {
      const { removeProfile } = await import('./rm.js');
      await removeProfile(deps.factory(cmd), name);
    });

  profile
    .command('migrate [names...]')
    .description('Move profiles\' secrets between the OS keyring and config.json (all profiles by default)')
    .option('--to <store>', 'where the secrets go: keyring or file')
    .option('--own-keyring', 'a copied config directory: copy its keyring profiles\' secrets into entries of its own')
    .addHelpText('after', helpFooter([
      '',
      'Examples:',
      '  $ svc profile migrate --to keyring          # every profile: keys out of config.json',
      '  $ svc profile migrate ci --to file          # a machine without a keyring',
      '  $ svc profile migrate --own-keyring         # a copy of a config directory (cp -a)',
    ]))
    .action(async (names: string[], opts: { to?: string; ownKeyring?: boolean }, cmd: Command) => {
      const { migrateProfiles } = await import('./migrate.js');
      await migrateProfiles(deps.factory(cmd), names, opts);
    });

  profile
    .command('set <name>')
    .description('Change a profile in place: its base URL (--base-url), or make it follow the sandbox; its keys stay')
    .option('--follow-sandbox', 'follow this config directory\'s sandbox wherever it listens (a svc_test_ key only)')
    .addHelpText('after', helpFooter([
      '',
      'A base URL given with --base-url is yours: the profile stops following the sandbox.',
      '',
      'Examples:',
      '  $ svc profile set ci --base-url https://api.example.com',
      '  $ svc profile set bot --follow-sandbox      # an older profile: follow the sandbox from now on',
    ]))
    .action(async (name: string, opts: { followSandbox?: boolean }, cmd: Command) => {
      const { setProfile } = await import('./set.js');
      await setProfile(deps.factory(cmd), name, opts);
    });

  profile
    .command('show [name]')
    .description('Show a profile (the current one by default): what is set, where it comes from, secrets masked')
    .action(async (name: string | undefined, _opts, cmd: Command) => {
      const { showProfile } = await import('./show.js');
      await showProfile(deps.factory(cmd), name);
    });
}
