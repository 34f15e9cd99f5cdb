import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorldError } from '../../src/world/errors.js';
import { FaultTable, faultMatches, parseFaultSpec, readFaults } from '../../src/world/faults.js';
import { WorldLedger } from '../../src/world/ledger.js';
import { tempRunDir } from '../helpers/run-dir.js';

const AT = '2026-01-01T00:00:00.000Z';

function parseError(input: unknown): WorldError {
  try {
    parseFaultSpec(input);
  } catch (error) {
    if (error instanceof WorldError) return error;
    throw error;
  }
  throw new Error('the spec was accepted');
}

describe('fault specs', () => {
  it('fills in the defaults: any call, once', () => {
    expect(parseFaultSpec({ action: { type: 'drop' } })).toEqual({ match: {}, times: 1, action: { type: 'drop' } });
    expect(parseFaultSpec({ match: { tool: 'charge_customer', nth: 3 }, times: 2, action: { type: 'delay', ms: 500, applied: true } })).toEqual({
      match: { tool: 'charge_customer', nth: 3 },
      times: 2,
      action: { type: 'delay', ms: 500, applied: true },
    });
  });

  it.each([
    [{ action: { type: 'fail', status: 500 } }, 'action.status'],
    [{ action: { type: 'explode' } }, 'action.type'],
    [{ action: { type: 'delay', ms: 10 } }, 'action.applied'],
    [{ action: { type: 'delay', ms: -1, applied: true } }, 'action.ms'],
    [{ match: { tool: 'drop_database' }, action: { type: 'drop' } }, 'match.tool'],
    [{ match: { nth: 0 }, action: { type: 'drop' } }, 'match.nth'],
    [{ times: 0, action: { type: 'drop' } }, 'times'],
    [{ action: { type: 'drop' }, probability: 0.5 }, '(body)'],
    [{}, 'action'],
  ])('rejects %j with a 400 naming %s', (input, path) => {
    const error = parseError(input);
    expect(error).toMatchObject({ code: 'WORLD_BAD_REQUEST', status: 400 });
    expect(error.issues.map((issue) => issue.path)).toContain(path);
    expect(error.message).toContain(`${path}:`);
  });

  it('matches on every matcher given, and any call when none is', () => {
    const call = { seq: 3, tool: 'charge_customer', key: 'j:charge' };
    expect(faultMatches({}, call)).toBe(true);
    expect(faultMatches({ key: 'j:charge' }, call)).toBe(true);
    expect(faultMatches({ key: 'j:other' }, call)).toBe(false);
    expect(faultMatches({ tool: 'charge_customer', nth: 3 }, call)).toBe(true);
    expect(faultMatches({ tool: 'charge_customer', nth: 4 }, call)).toBe(false);
    expect(faultMatches({ tool: 'send_email' }, call)).toBe(false);
  });
});

describe('the fault table', () => {
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.reverse()) step();
    cleanup = [];
  });
  const open = () => {
    const run = tempRunDir('faults');
    const file = join(run.dir, 'world.db');
    const ledger = WorldLedger.open(file);
    cleanup.push(run.remove, () => ledger.close());
    return { file, ledger, faults: new FaultTable(ledger.db) };
  };
  const callN = (seq: number, tool = 'write_file', key = `k${seq}`) => ({ seq, tool, key });

  it('fires at most `times` times, one fault per call, earliest armed first', () => {
    const { faults } = open();
    const twice = faults.arm(parseFaultSpec({ match: { tool: 'write_file' }, times: 2, action: { type: 'fail', status: 503 } }), AT);
    const later = faults.arm(parseFaultSpec({ match: { tool: 'write_file' }, action: { type: 'drop' } }), AT);
    expect(faults.take(callN(1))?.id).toBe(twice.id);
    expect(faults.take(callN(2))?.id).toBe(twice.id);
    expect(faults.take(callN(3))?.id).toBe(later.id);
    expect(faults.take(callN(4))).toBeNull();
    expect(faults.list().map((f) => [f.id, f.fired, f.remaining])).toEqual([
      [twice.id, 2, 0],
      [later.id, 1, 0],
    ]);
  });

  it('shows a fault that never fired with fired 0', () => {
    const { faults } = open();
    const never = faults.arm(parseFaultSpec({ match: { key: 'no-such-key' }, action: { type: 'drop' } }), AT);
    const nth = faults.arm(parseFaultSpec({ match: { nth: 2 }, action: { type: 'error_after_apply' } }), AT);
    for (let seq = 1; seq <= 5; seq++) faults.take(callN(seq));
    expect(faults.list().map((f) => ({ id: f.id, fired: f.fired }))).toEqual([
      { id: never.id, fired: 0 },
      { id: nth.id, fired: 1 },
    ]);
  });

  it('clearing disarms but keeps the evidence in the file', () => {
    const { faults, file } = open();
    faults.arm(parseFaultSpec({ action: { type: 'drop' }, times: 5 }), AT);
    faults.take(callN(1));
    const cleared = faults.clear('2026-01-01T00:01:00.000Z');
    expect(cleared).toMatchObject([{ fired: 1, remaining: 0, clearedAt: '2026-01-01T00:01:00.000Z' }]);
    expect(faults.take(callN(2))).toBeNull();
    expect(faults.list()).toEqual([]);
    expect(faults.list({ includeCleared: true })).toHaveLength(1);
    expect(readFaults(file)).toMatchObject([{ fired: 1, clearedAt: '2026-01-01T00:01:00.000Z', spec: { times: 5, action: { type: 'drop' } } }]);
  });

  it('survives a restart of the world: armed faults and fired counts are in the ledger file', () => {
    const { faults, ledger, file } = open();
    faults.arm(parseFaultSpec({ match: { tool: 'charge_customer' }, times: 2, action: { type: 'drop' } }), AT);
    faults.take(callN(1, 'charge_customer'));
    ledger.close();
    const reopened = WorldLedger.open(file);
    cleanup.push(() => reopened.close());
    const again = new FaultTable(reopened.db);
    expect(again.list()).toMatchObject([{ fired: 1, remaining: 1 }]);
    expect(again.take(callN(2, 'charge_customer'))).not.toBeNull();
    expect(again.take(callN(3, 'charge_customer'))).toBeNull();
  });
});
