import { CanonicalJsonError } from '../kernel/canonical-json.js';
import { PythonJsonError } from '../kernel/python-json.js';

/*
 * Errors of the world service, each with a stable code and the HTTP status it
 * is answered with, so the client (and a person reading a log) can tell a bad
 * request from an injected fault from a lost response without parsing text.
 * Messages never quote call arguments: they may hold secrets.
 */

/** Every code the world answers or the world client raises. */
export type WorldErrorCode =
  // Answered by the server.
  | 'WORLD_BAD_JSON'
  | 'WORLD_BAD_REQUEST'
  | 'WORLD_UNKNOWN_TOOL'
  | 'WORLD_BODY_TOO_LARGE'
  | 'WORLD_NOT_FOUND'
  | 'WORLD_METHOD_NOT_ALLOWED'
  | 'WORLD_KEY_REUSED'
  | 'WORLD_STALE_FENCE'
  | 'WORLD_COMPENSATION_MISMATCH'
  | 'WORLD_INJECTED_FAILURE'
  | 'WORLD_INJECTED_ERROR_AFTER_APPLY'
  | 'WORLD_DELAYED_NOT_APPLIED'
  | 'WORLD_INTERNAL'
  // Raised by readers of a ledger file.
  | 'WORLD_LEDGER_MISSING'
  // Raised by the client when no usable answer came back.
  | 'WORLD_TIMEOUT'
  | 'WORLD_RESPONSE_LOST'
  | 'WORLD_UNREACHABLE'
  | 'WORLD_BAD_RESPONSE'
  | 'WORLD_HTTP_STATUS';

/** One problem in a request body, located by its path ("action.status", "args.amount"). */
export interface WorldIssue {
  path: string;
  message: string;
}

/** A failure of the world with a stable code and the HTTP status it maps to. */
export class WorldError extends Error {
  override readonly name = 'WorldError';
  constructor(
    readonly code: WorldErrorCode,
    message: string,
    readonly status: number = 500,
    readonly issues: readonly WorldIssue[] = [],
  ) {
    super(message);
  }
}

/** The issues of a zod error as path-named lines; the message names every failing path. */
export function issuesOf(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix = ''): WorldIssue[] {
  return issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return { path: path === '' ? '(body)' : path, message: issue.message };
  });
}

/** A 400 whose message lists each failing path, so a wrong spec is fixed from the message alone. */
export function badRequest(code: WorldErrorCode, what: string, issues: WorldIssue[]): WorldError {
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return new WorldError(code, `invalid ${what}: ${detail}`, 400, issues);
}

/** Any thrown value as a WorldError with the right status, so every failure is answered with a code. */
export function asWorldError(error: unknown): WorldError {
  if (error instanceof WorldError) return error;
  if (error instanceof PythonJsonError || error instanceof CanonicalJsonError) {
    return new WorldError('WORLD_BAD_REQUEST', `invalid call: args cannot be digested (${error.code})`, 400);
  }
  // SQLITE_BUSY: the transaction never committed, so nothing was applied: retrying is safe.
  if (typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('SQLITE_BUSY')) {
    return new WorldError('WORLD_INTERNAL', 'the ledger is busy; nothing was applied', 503);
  }
  return new WorldError('WORLD_INTERNAL', `internal error: ${error instanceof Error ? error.name : 'unknown'}`, 500);
}
