import { CanonicalJsonError } from '../queue/canonical-json.js';
import { PythonJsonError } from '../queue/python-json.js';

/*
 * Errors at the CLI boundary: each with a stable code and the exit code it
 * maps to. 0: all held; 1: an invariant broke; 2: bad input; 3: the harness
 * itself failed.
 */

export const EXIT = { ok: 0, violated: 1, badInput: 2, harnessFailed: 3 } as const;

/** The user's input is wrong; the message says what is allowed. */
export class UsageError extends Error {
  readonly code = 'QD_BAD_INPUT';
  readonly exitCode = EXIT.badInput;
}

/** queue-drill itself could not do its job (a child would not start, a deadline passed). */
export class HarnessError extends Error {
  readonly code: string;
  readonly exitCode = EXIT.harnessFailed;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Codes of errors thrown below the CLI that mean the user's input was wrong. */
const BAD_INPUT_CODES = new Set(['QD_BAD_PLAN', 'QD_NOT_AWAITING_APPROVAL', 'QD_UNKNOWN_QUEUE', 'QD_BAD_SCENARIOS', 'QD_BAD_REPORT_FILE']);

/** The exit code for any error that reaches the CLI boundary. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof HarnessError) return error.exitCode;
  if (error instanceof PythonJsonError || error instanceof CanonicalJsonError) return EXIT.badInput;
  // Bad input found deeper down (a plan, an approval) says so by its code, so this file need not load those modules.
  if (typeof error === 'object' && error !== null && 'code' in error && BAD_INPUT_CODES.has(String(error.code))) return EXIT.badInput;
  return EXIT.harnessFailed;
}
