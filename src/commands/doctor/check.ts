// What one doctor check reports: a status, one line of detail, and (when something is wrong) the
// next thing to do. docs/doctor.md lists every check and what each status means.

/**
 * ok: nothing to do. warn: works, but worth knowing (does not fail the run). fail: something a
 * command will trip on (the run exits 1). skip: not run, because a check it needs failed.
 */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable machine name (`api_key`): the `name` of the --json document. */
  name: string;
  status: CheckStatus;
  /** One line for a person; never a whole secret (keys are masked where they are built). */
  detail: string;
  /** The next step, in hint style: lower case, commands in backticks. */
  fix?: string;
  /** Facts a script may want (`skew_ms`, `account` ...): part of the --json document. */
  data?: Record<string, unknown>;
}

/** The label a person reads on the left of each line. */
export const LABELS: Readonly<Record<string, string>> = {
  node: 'Node.js',
  config_dir: 'config dir',
  config_file: 'config file',
  secrets: 'secrets',
  profile: 'profile',
  base_url: 'base URL',
  proxy: 'proxy',
  reachable: 'reachable',
  tls: 'TLS',
  clock: 'clock',
  api_key: 'API key',
  decryption_key: 'decryption key',
};

/** Every check, in the order it runs and prints. */
type Extra = Pick<CheckResult, 'fix' | 'data'>;

export const ok = (name: string, detail: string, extra: Extra = {}): CheckResult => ({ name, status: 'ok', detail, ...extra });
export const warn = (name: string, detail: string, extra: Extra = {}): CheckResult => ({ name, status: 'warn', detail, ...extra });
export const fail = (name: string, detail: string, extra: Extra = {}): CheckResult => ({ name, status: 'fail', detail, ...extra });
/** Not run: `reason` says which earlier check it needed. */
export const skip = (name: string, reason: string): CheckResult => ({ name, status: 'skip', detail: `skipped: ${reason}` });

/** Whether a later check may build on this one. */
export const passed = (r: CheckResult | undefined): boolean => r !== undefined && (r.status === 'ok' || r.status === 'warn');
