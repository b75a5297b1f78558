import { describe, expect, it } from 'vitest';
import { installKind, upgradeCommand } from '../../../src/runtime/update/upgrade-command.js';

describe('the upgrade command follows how svc was installed', () => {
  const cases: Array<[string, string, string]> = [
    ['/usr/local/lib/node_modules/svc/dist/bundle/svc.js', 'svc', 'npm install -g svc@latest'],
    ['/home/u/.npm-global/lib/node_modules/@acme/svc/dist/bundle/svc.js', '@acme/svc', 'npm install -g @acme/svc@latest'],
    ['/home/u/.npm/_npx/0a1b2c/node_modules/@acme/svc/dist/bundle/svc.js', '@acme/svc', 'npx @acme/svc@latest'],
    ['/home/u/project/node_modules/svc/dist/bundle/svc.js', 'svc', 'npm install svc@latest'],
    ['C:/Users/u/AppData/Roaming/npm/node_modules/svc/dist/bundle/svc.js', 'svc', 'npm install -g svc@latest'],
    ['/home/u/src/svc/dist/bundle/svc.js', 'svc', 'git pull && npm install && npm run build'],
    // Another package of that name elsewhere in the path is not svc's install.
    ['/home/u/src/svc/node_modules/other/x.js', 'svc', 'git pull && npm install && npm run build'],
  ];
  it.each(cases)('%s', (path, name, command) => {
    expect(upgradeCommand(installKind(path, name), name)).toBe(command);
  });
});
