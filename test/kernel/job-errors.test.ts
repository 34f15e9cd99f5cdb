import { describe, expect, it } from 'vitest';
import {
  BusinessRuleError,
  classifyError,
  ERROR_KINDS,
  type ErrorKind,
  JobError,
  PermanentError,
  PolicyViolationError,
  TransientError,
  UnknownOutcomeError,
} from '../../src/kernel/job-errors.js';

/** A Node-style system error: a message plus a `code`. */
function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('typed job errors', () => {
  it.each([
    { Type: TransientError, kind: 'transient' },
    { Type: PermanentError, kind: 'permanent' },
    { Type: BusinessRuleError, kind: 'business' },
    { Type: UnknownOutcomeError, kind: 'unknown_outcome' },
    { Type: PolicyViolationError, kind: 'policy' },
  ] as const)('$Type.name carries kind $kind, its name, its message and its cause', ({ Type, kind }) => {
    const cause = new Error('underneath');
    const error = new Type('it broke', { cause });
    expect(error).toBeInstanceOf(JobError);
    expect(error).toBeInstanceOf(Error);
    expect(error.kind).toBe(kind);
    expect(error.name).toBe(Type.name);
    expect(error.message).toBe('it broke');
    expect(error.cause).toBe(cause);
    expect(classifyError(error)).toBe(kind);
  });

  it('classifies a typed error by its kind, never by its message', () => {
    // Each message would match another kind's pattern.
    expect(classifyError(new TransientError('timeout talking to the bank'))).toBe('transient');
    expect(classifyError(new PermanentError('503 from upstream'))).toBe('permanent');
    expect(classifyError(new UnknownOutcomeError('401'))).toBe('unknown_outcome');
    expect(classifyError(new BusinessRuleError('socket hang up'))).toBe('business');
    expect(classifyError(new PolicyViolationError('ECONNREFUSED'))).toBe('policy');
  });

  it.each(ERROR_KINDS)('classifies a bare JobError of kind %s as that kind', (kind) => {
    expect(classifyError(new JobError(kind, 'no matching words here'))).toBe(kind);
  });
});

describe('classifyError on foreign errors', () => {
  const cases: Array<{ name: string; error: unknown; kind: ErrorKind }> = [
    // A timeout or a dropped connection: the request may have been applied.
    // The queue sketch sent every timeout to retry; it is an unknown outcome.
    { name: 'a timeout message', error: new Error('request timeout after 5000 ms'), kind: 'unknown_outcome' },
    { name: '"timed out"', error: new Error('the operation timed out'), kind: 'unknown_outcome' },
    { name: 'ETIMEDOUT by message', error: new Error('connect ETIMEDOUT 10.0.0.1:443'), kind: 'unknown_outcome' },
    { name: 'ETIMEDOUT by code only', error: systemError('ETIMEDOUT', 'request failed'), kind: 'unknown_outcome' },
    { name: 'ECONNRESET by message', error: new Error('read ECONNRESET'), kind: 'unknown_outcome' },
    { name: 'ECONNRESET by code only', error: systemError('ECONNRESET', 'request failed'), kind: 'unknown_outcome' },
    { name: 'connection reset by peer', error: new Error('Connection reset by peer'), kind: 'unknown_outcome' },
    { name: 'socket hang up', error: new Error('socket hang up'), kind: 'unknown_outcome' },
    { name: 'EPIPE', error: systemError('EPIPE', 'write EPIPE'), kind: 'unknown_outcome' },
    {
      name: "fetch's AbortSignal.timeout DOMException",
      error: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      kind: 'unknown_outcome',
    },
    { name: 'a thrown string that says timeout', error: 'Timeout', kind: 'unknown_outcome' },
    { name: 'a timeout that also mentions 503', error: new Error('503 retry budget spent: timeout'), kind: 'unknown_outcome' },

    // Failed before anything was applied: retry later.
    { name: 'HTTP 503', error: new Error('HTTP 503 from payments'), kind: 'transient' },
    { name: 'Service Unavailable', error: new Error('Service Unavailable'), kind: 'transient' },
    { name: 'HTTP 429', error: new Error('status 429'), kind: 'transient' },
    { name: 'Too Many Requests', error: new Error('Too Many Requests'), kind: 'transient' },
    { name: 'ECONNREFUSED by message', error: new Error('connect ECONNREFUSED 127.0.0.1:9'), kind: 'transient' },
    { name: 'ECONNREFUSED by code only', error: systemError('ECONNREFUSED', 'connect failed'), kind: 'transient' },

    // Will fail again however often it is tried.
    { name: 'HTTP 401', error: new Error('HTTP 401'), kind: 'permanent' },
    { name: 'HTTP 403', error: new Error('403 Forbidden'), kind: 'permanent' },
    { name: 'Unauthorized', error: new Error('Unauthorized'), kind: 'permanent' },
    { name: 'unauthorised (British spelling)', error: new Error('request unauthorised'), kind: 'permanent' },
    { name: 'permission denied', error: systemError('EACCES', 'permission denied'), kind: 'permanent' },

    // Anything else: nobody knows, so it is not retried blind.
    { name: 'an ordinary error', error: new Error('boom'), kind: 'unclassified' },
    { name: 'a number that only contains 503', error: new Error('5030 rows scanned'), kind: 'unclassified' },
    { name: 'a number that only contains 401', error: new Error('order 14010 not found'), kind: 'unclassified' },
    { name: 'a thrown string', error: 'something odd', kind: 'unclassified' },
    { name: 'null', error: null, kind: 'unclassified' },
    { name: 'undefined', error: undefined, kind: 'unclassified' },
    { name: 'a number', error: 42, kind: 'unclassified' },
    { name: 'a plain object', error: { reason: 'nope' }, kind: 'unclassified' },
  ];

  it.each(cases)('classifies $name as $kind', ({ error, kind }) => {
    expect(classifyError(error)).toBe(kind);
  });

  it("never calls a timeout transient (the queue sketch's trap)", () => {
    for (const message of ['timeout', 'Timeout', 'TIMEOUT 503', 'gateway timeout (504)', 'ETIMEDOUT']) {
      expect(classifyError(new Error(message))).toBe('unknown_outcome');
    }
  });
});
