/**
 * The environment variable every process one harness starts carries, with
 * that harness's token, and passes on to what it starts: by it the reaper
 * (./reaper-process.ts) finds them all once the harness is gone.
 */
export const HARNESS_TOKEN_ENV = 'QD_HARNESS_TOKEN';
