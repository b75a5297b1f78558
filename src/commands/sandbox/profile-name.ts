/** The profile `svc sandbox start` writes and the admin commands read (unless --profile). */
export const SANDBOX_PROFILE = 'sandbox';
