import { describe, expect, it } from 'vitest';
import { keptMark, type OwnerMark, ownerMarkHere, parseOwnerMark } from '../../../src/adapters/leftovers/owner-mark.js';
import { type OwnerFacts, type OwnerState, ownerState } from '../../../src/adapters/leftovers/owner-state.js';
import type { ProcessLook } from '../../../src/adapters/leftovers/process-identity.js';

/*
 * The judge of a leftover's owner, on marks as a drill writes them: what it
 * removes (gone) and what it must never remove (running, kept, unmarked),
 * case by case. The processes it looks at are described here (this is the
 * judge alone; test/adapters/leftovers/process-identity.test.ts and the
 * end-to-end test/cli/clean.test.ts look at real ones).
 */

const HERE = { host: 'drill-host', bootId: 'boot-1' };
const MARK: OwnerMark = {
  tool: 'queue-drill',
  queue: 'postgres',
  host: 'drill-host',
  bootId: 'boot-1',
  pid: 4242,
  pidStart: '1000',
  runDir: '/runs/2026-12-03T12-00-00.000Z/long-pause',
  madeAt: '2026-12-03T12:00:00.000Z',
};

const alive = (start: string | null) => (): ProcessLook => ({ alive: true, start });
const dead = (): ProcessLook => ({ alive: false, start: null });

interface Case {
  what: string;
  mark: OwnerMark | null;
  facts: Partial<OwnerFacts>;
  state: OwnerState;
}

const CASES: Case[] = [
  { what: 'no mark at all', mark: null, facts: { lookAt: dead }, state: 'unmarked' },
  { what: 'its harness on this host is dead', mark: MARK, facts: { lookAt: dead }, state: 'gone' },
  { what: 'its harness on this host runs', mark: MARK, facts: { lookAt: alive('1000') }, state: 'running' },
  {
    what: 'its harness runs, its lease lapsed (a stopped harness)',
    mark: MARK,
    facts: { lookAt: alive('1000'), leaseLive: false },
    state: 'running',
  },
  { what: 'its pid is another process now', mark: MARK, facts: { lookAt: alive('2000') }, state: 'gone' },
  { what: 'the pid lives and no start time is known', mark: { ...MARK, pidStart: null }, facts: { lookAt: alive('2000') }, state: 'running' },
  { what: 'the host booted since', mark: MARK, facts: { here: { ...HERE, bootId: 'boot-2' }, lookAt: alive('1000') }, state: 'gone' },
  { what: 'kept by --keep, its harness dead', mark: keptMark(MARK), facts: { lookAt: dead }, state: 'kept' },
  { what: 'on another host, lease live', mark: { ...MARK, host: 'elsewhere' }, facts: { lookAt: dead, leaseLive: true }, state: 'running' },
  { what: 'on another host, lease lapsed', mark: { ...MARK, host: 'elsewhere' }, facts: { lookAt: alive('1000'), leaseLive: false }, state: 'gone' },
  { what: 'on another host, no lease to read', mark: { ...MARK, host: 'elsewhere' }, facts: { lookAt: dead, leaseLive: null }, state: 'running' },
];

describe('ownerState', () => {
  it.each(CASES.map((c) => [c.what, c] as const))('%s', (_what, c) => {
    const facts: OwnerFacts = { here: HERE, lookAt: dead, leaseLive: true, ...c.facts };
    const verdict = ownerState(c.mark, facts);
    expect(verdict.state).toBe(c.state);
    expect(verdict.why).not.toBe('');
  });
});

describe('owner marks', () => {
  it('read back as written, kept or not', () => {
    const mark = ownerMarkHere('bullmq', 'drill-runs/x');
    expect(mark.pid).toBe(process.pid);
    expect(mark.runDir).toMatch(/^\/.*drill-runs\/x$/);
    expect(parseOwnerMark(JSON.stringify(mark))).toEqual(mark);
    expect(parseOwnerMark(JSON.stringify(keptMark(mark)))).toEqual({ ...mark, kept: true });
    // A renewal's stamp rides along in a PostgreSQL comment: the mark reads the same.
    expect(parseOwnerMark(JSON.stringify({ ...mark, renewedAtMs: 1 }))).toEqual(mark);
  });

  it.each([
    ['no comment', null],
    ['a comment a person wrote', 'the billing queue, do not drop'],
    ['JSON of another tool', JSON.stringify({ ...MARK, tool: 'other' })],
    ['a mark without a pid', JSON.stringify({ ...MARK, pid: undefined })],
    ['a mark whose pid is not a number', JSON.stringify({ ...MARK, pid: '4242' })],
    ['a mark whose kept is not true', JSON.stringify({ ...MARK, kept: 'yes' })],
  ])('are not read from %s', (_what, text) => {
    expect(parseOwnerMark(text)).toBeNull();
  });
});
