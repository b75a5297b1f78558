// The machine's clock, read in this one place in src/api. The client takes "now" from its caller
// (ClientOptions.now: the command's clock, a test's virtual one); this is only the default.
export const systemNow = (): number => Date.now();
