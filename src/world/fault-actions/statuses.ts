/** The HTTP statuses a `fail` fault answers: 503/429 transient, 401/403 permanent. */
export const WORLD_FAIL_STATUSES = [503, 429, 401, 403] as const;

/** One of the statuses a `fail` fault answers. */
export type WorldFailStatus = (typeof WORLD_FAIL_STATUSES)[number];
