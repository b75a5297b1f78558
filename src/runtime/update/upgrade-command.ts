// The upgrade command that matches how svc was installed, read from where its code is.

/** How svc is installed, from the path of the running module (symlinks resolved by Node). */
export type InstallKind = 'npx' | 'global' | 'local' | 'checkout';

export function installKind(modulePath: string, name: string): InstallKind {
  const p = modulePath.replace(/\\/g, '/');
  const inPackage = `/node_modules/${name}/`;
  if (!p.includes(inPackage)) return 'checkout';
  if (p.includes('/_npx/')) return 'npx';
  // npm -g: <prefix>/lib/node_modules/<name> (POSIX), <prefix>/node_modules/<name> (Windows: no node_modules above it).
  const before = p.slice(0, p.lastIndexOf(inPackage));
  if (before.endsWith('/lib') || (/^[A-Za-z]:\//.test(p) && !before.includes('/node_modules'))) return 'global';
  return 'local';
}

export function upgradeCommand(kind: InstallKind, name: string): string {
  switch (kind) {
    case 'npx':
      return `npx ${name}@latest`;
    case 'global':
      return `npm install -g ${name}@latest`;
    case 'local':
      return `npm install ${name}@latest`;
    case 'checkout':
      return 'git pull && npm install && npm run build';
  }
}
