// The version of the code that runs (bin/svc.js answers --version from the bundle built from this;
// a unit test keeps it equal to package.json).
export const VERSION = '0.1.0';
