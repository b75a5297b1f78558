// The version of the code that runs (bin/svc.js answers --version from the bundle built from this;
// a unit test keeps it equal to package.json).
export const VERSION = '0.1.0';
// The package's name on the registry (package.json's "name"; test/version.test.ts keeps them
// equal): the update notice asks the registry about it and names it in the upgrade command.
export const PACKAGE_NAME = '@svc-cli/svc';
