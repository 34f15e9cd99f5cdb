/*
 * Every error queue-drill throws on purpose extends QueueDrillError: a stable
 * `code` a script can match, and the exit code the CLI ends with when the
 * error reaches it. The CLI maps errors to exit codes in one line (exitCodeFor)
 * instead of keeping a list of codes that would fall behind. Job failures
 * (src/kernel/job-errors.ts) are not among them: they are a job's outcome,
 * routed by the recovery matrix, never a reason for the CLI to stop.
 */

/** 0: all held; 1: an invariant broke (or a job ended wrong, or a fault never fired); 2: bad input; 3: the harness itself failed. */
export const EXIT = { ok: 0, violated: 1, badInput: 2, harnessFailed: 3, inconclusive: 4 } as const;

/** One of the CLI's exit codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error with a stable code and the exit code it ends the CLI with. */
export abstract class QueueDrillError extends Error {
  abstract readonly code: string;
  abstract readonly exitCode: ExitCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The user's input is wrong (a flag, a file, a plan); the message says what is allowed. Exit 2. */
export abstract class InputError extends QueueDrillError {
  readonly exitCode = EXIT.badInput;
}

/** queue-drill itself could not do its job, or found a bug in itself. Exit 3. */
export abstract class InternalError extends QueueDrillError {
  readonly exitCode = EXIT.harnessFailed;
}

/** A command line that does not make sense. */
export class UsageError extends InputError {
  readonly code = 'QD_BAD_INPUT';
}

/** The harness could not do its job (a child would not start, a deadline passed), with a code saying which. */
export class HarnessError extends InternalError {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The exit code for any error that reaches the CLI boundary: its own, else 3 (an error nobody meant to throw is a harness failure). */
export function exitCodeFor(error: unknown): ExitCode {
  return error instanceof QueueDrillError ? error.exitCode : EXIT.harnessFailed;
}
