// The version of the code that runs (bin/svc.js answers --version from here, through the bundle).
export const VERSION = '0.1.0';
