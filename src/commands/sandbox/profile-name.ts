/** The profile `svc sandbox start` writes and the admin commands read (unless --profile). */
export { SANDBOX_PROFILE } from '../../config/sandbox-profile.js';
