/*
 * The failures a job step can end in, after the transaction sketch's recovery matrix. A step
 * throws one of these typed errors; message matching (the queue sketch's classify_error)
 * is only the fallback for errors from code that does not know them.
 */

export const ERROR_KINDS = ['transient', 'permanent', 'business', 'unknown_outcome', 'policy', 'unclassified'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** A failure of a job step whose kind decides how the queue recovers. */
export class JobError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Will likely pass if tried again later (503, 429, connection refused before sending). */
export class TransientError extends JobError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('transient', message, options);
  }
}

/** Will fail again however often it is tried (401, 403, bad input). */
export class PermanentError extends JobError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('permanent', message, options);
  }
}

/** A business rule is not met; a person must re-plan or give input. */
export class BusinessRuleError extends JobError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('business', message, options);
  }
}

/** The effect may or may not have happened (timeout, lost response): reconcile, never retry blind. */
export class UnknownOutcomeError extends JobError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unknown_outcome', message, options);
  }
}

/** The step violates a policy and must not run. */
export class PolicyViolationError extends JobError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('policy', message, options);
  }
}

/**
 * The kind of any thrown value. Typed errors carry their kind; for foreign
 * errors, the queue sketch's message matching, corrected: a timeout or a dropped
 * connection is an unknown outcome (the request may have been applied), not a
 * transient error, so it is never retried blind.
 */
export function classifyError(error: unknown): ErrorKind {
  if (error instanceof JobError) return error.kind;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const text = `${code} ${error instanceof Error ? error.message : String(error)}`.toLowerCase();
  if (/timeout|timed out|etimedout|connection reset|econnreset|socket hang up|epipe/.test(text)) return 'unknown_outcome';
  if (/\b503\b|\b429\b|econnrefused|service unavailable|too many requests/.test(text)) return 'transient';
  if (/\b401\b|\b403\b|permission|forbidden|unauthori[sz]ed/.test(text)) return 'permanent';
  return 'unclassified';
}
