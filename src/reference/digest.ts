import { InternalError } from '../kernel/errors.js';

const DIGEST = /^[0-9a-f]{64}$/;

/** Thrown when `done` is asked for without a verification digest: done is never the worker's word. */
export class MissingDigestError extends InternalError {
  readonly code = 'QD_DONE_WITHOUT_DIGEST';
  constructor(digest: unknown) {
    super(`complete needs the verified result's SHA-256 digest (64 lowercase hex), got ${JSON.stringify(digest)}`);
  }
}

/** Throws MissingDigestError unless `digest` is a SHA-256 hex digest (64 lowercase hex): every store checks before it writes done. */
export function assertDigest(digest: unknown): asserts digest is string {
  if (typeof digest !== 'string' || !DIGEST.test(digest)) throw new MissingDigestError(digest);
}
