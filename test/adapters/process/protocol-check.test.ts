import { describe, expect, it } from 'vitest';
import { runProtocolCheck } from '../../../src/contract/protocol/run-protocol-check.js';
import { brokenFixture, PYTHON_EXAMPLE } from './python.js';

/*
 * protocol-check against real children: the Python example passes every
 * step; each deliberately broken variant fails, and the failure names the
 * protocol message at fault (a checker that cannot fail proves nothing).
 */

describe('protocol-check', () => {
  it('passes every step on the Python example', { timeout: 120_000 }, async () => {
    const results = await runProtocolCheck(PYTHON_EXAMPLE);
    expect(results.filter((r) => r.status !== 'pass')).toEqual([]);
    expect(results.map((r) => r.name)).toContain('stale-write-refused');
  });

  it.each([
    { fixture: 'stale-write-accepted', step: 'stale-write-refused', about: 'settle', why: /answered ok .*expected fail lease_lost/ },
    { fixture: 'refusal-not-recorded', step: 'stale-write-refused', about: 'snapshot', why: /no refused entry under epoch/ },
    { fixture: 'log-to-stdout', step: 'deliver', about: 'stdout', why: /a line on stdout that is not JSON: "INFO claimed/ },
    { fixture: 'no-dedupe', step: 'enqueue-dedupe', about: 'enqueue', why: /answered .*created.*expected deduplicated/ },
    { fixture: 'ignores-stdin-close', step: 'exit-on-stdin-close', about: 'stdin', why: /still running 2 s after its stdin closed/ },
  ])('fails $fixture at $step, naming $about', { timeout: 120_000 }, async ({ fixture, step, about, why }) => {
    const results = await runProtocolCheck(brokenFixture(fixture), [step]);
    const failed = results.find((r) => r.name === step);
    expect(failed, JSON.stringify(results)).toMatchObject({ status: 'fail', about, detail: expect.stringMatching(why) });
  });
});
