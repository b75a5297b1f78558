// Where the local sandbox listens unless told otherwise: one definition for the sandbox, the
// `sandbox start` flags and the tool (which sends a test key there when nothing else is set; a
// live key, never: key-transport.ts).
export const DEFAULT_SANDBOX_HOST = '127.0.0.1';
export const DEFAULT_SANDBOX_PORT = 46630;
export const DEFAULT_SANDBOX_URL = `http://${DEFAULT_SANDBOX_HOST}:${DEFAULT_SANDBOX_PORT}`;
