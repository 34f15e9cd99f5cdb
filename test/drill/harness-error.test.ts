import { describe, expect, it } from 'vitest';
import { failureText } from '../../src/drill/harness-error.js';

describe('failureText', () => {
  it("keeps an error's code and its causes, which a message alone loses", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    const lost = Object.assign(new Error('the queue server was lost', { cause: refused }), { code: 'QD_SERVER_LOST' });
    expect(failureText(lost)).toBe('the queue server was lost [QD_SERVER_LOST] (cause: connect ECONNREFUSED 127.0.0.1:6379)');
    expect(failureText(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe('terminating connection [57P01]');
    expect(failureText('a string thrown')).toBe('a string thrown');
  });

  it('follows a chain of causes only so far, even a cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(failureText(a)).toBe('a (cause: b (cause: a (cause: b)))');
  });

  it('redacts secret-shaped text in the message and in its causes', () => {
    const cause = new Error('auth failed for postgres://drill:hunter2-secret@127.0.0.1/db');
    const text = failureText(new Error('cannot connect', { cause }));
    expect(text).toMatch(/^cannot connect \(cause: auth failed for /);
    expect(text).not.toContain('hunter2-secret');
  });
});
