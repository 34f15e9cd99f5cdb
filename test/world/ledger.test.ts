import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, utc } from '../../src/kernel/clock.js';
import { argsDigest } from '../../src/world/args-digest.js';
import { applyCall, type WorldCall } from '../../src/world/effects.js';
import { WorldError } from '../../src/world/errors.js';
import { effectsByKey, externalRefFor } from '../../src/world/ledger/effects-table.js';
import { readCalls, readLedger, WorldLedger } from '../../src/world/ledger.js';
import { tempRunDir } from '../helpers/run-dir.js';

const META = { job: '7', step: 'charge', attempt: 1, worker: 'w1', pid: 4242 };
const call = (tool: WorldCall['tool'], key: string, args: Record<string, unknown>): WorldCall => ({ tool, key, args, meta: META });

describe('the world ledger', () => {
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.reverse()) step();
    cleanup = [];
  });
  const open = () => {
    const run = tempRunDir('ledger');
    const file = join(run.dir, 'world.db');
    const ledger = WorldLedger.open(file);
    cleanup.push(run.remove, () => ledger.close());
    return { file, ledger };
  };
  const clock = new ManualClock(Date.UTC(2026, 7, 25, 10));
  const at = () => utc(clock.now());

  it('digests arguments as sha256 of canonical JSON (sorted keys, compact), whatever the key order', () => {
    const expected = createHash('sha256').update('{"amount":199,"customer":"c_1024"}').digest('hex');
    expect(argsDigest({ customer: 'c_1024', amount: 199 })).toBe(expected);
    expect(argsDigest({ amount: 199, customer: 'c_1024' })).toBe(expected);
    expect(argsDigest({ amount: 200, customer: 'c_1024' })).not.toBe(expected);
    // Non-ASCII is written raw and hashed as UTF-8, as Python's ensure_ascii=False does.
    expect(argsDigest({ s: 'é' })).toBe(createHash('sha256').update('{"s":"é"}', 'utf8').digest('hex'));
  });

  it('derives external references from the seq, never from chance', () => {
    expect(externalRefFor('ch_', 17)).toBe('ch_000017');
    const { ledger } = open();
    const refs = [1, 2, 3].map((n) => applyCall(ledger, call('charge_customer', `k${n}`, { customer: 'c', amount: n }), at()).externalRef);
    expect(refs).toEqual(['ch_000001', 'ch_000002', 'ch_000003']);
  });

  it('writes every field of an applied effect, and never the arguments', () => {
    const { file, ledger } = open();
    const secret = 'sk_live_abcdefghijklmnop1234';
    const applied = applyCall(ledger, call('charge_customer', 'job-7:charge', { customer: 'cust_visible_name', amount: 199, api_key: secret }), at());
    ledger.close();
    const [row] = readLedger(file);
    expect(row).toEqual({
      seq: 1,
      key: 'job-7:charge',
      tool: 'charge_customer',
      idempotent: false,
      argsDigest: argsDigest({ customer: 'cust_visible_name', amount: 199, api_key: secret }),
      job: '7',
      step: 'charge',
      attempt: 1,
      worker: 'w1',
      pid: 4242,
      at: '2026-08-25T10:00:00.000Z',
      externalRef: 'ch_000001',
      result: { charge: 'ch_000001', status: 'succeeded' },
      compensates: null,
      // No fence shown.
      epoch: null,
    });
    expect(applied.result).toEqual(row!.result);
    // The whole file (and any WAL left) holds neither the secret nor any other argument.
    const bytes = [file, `${file}-wal`]
      .filter(existsSync)
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    expect(bytes).not.toContain(secret);
    expect(bytes).not.toContain('cust_visible_name');
    expect(bytes).toContain('job-7:charge');
  });

  it("writes the fence its caller showed as the effect's epoch", () => {
    const { file, ledger } = open();
    const fenced = (fence: number): WorldCall => ({
      ...call('charge_customer', `k${fence}`, { customer: 'c', amount: 1 }),
      meta: { ...META, fence },
    });
    for (const c of [fenced(0), fenced(4)]) applyCall(ledger, c, at());
    expect(readLedger(file).map((e) => e.epoch)).toEqual([0, 4]);
  });

  it('admits a fence per key and per job: one lower than either has seen is refused, and floors only rise', () => {
    const { ledger } = open();
    const steps: Array<{ key: string; fence: number; job?: string | null; admitted: boolean; why: string }> = [
      { key: '7:charge', fence: 2, job: '7', admitted: true, why: 'the first fence of key and job' },
      { key: '7:charge', fence: 1, job: '7', admitted: false, why: 'lower than the key has seen' },
      { key: '7:notify', fence: 1, job: '7', admitted: false, why: 'a new key, but lower than its job has seen' },
      { key: '7:notify', fence: 1, admitted: true, why: 'the same, without a job: fenced by key only' },
      { key: '7:notify', fence: 1, job: null, admitted: true, why: 'a null job is no job' },
      { key: '8:notify', fence: 1, job: '8', admitted: true, why: 'another job is unaffected' },
      { key: '7:notify', fence: 2, job: '7', admitted: true, why: 'equal to the floor' },
      { key: '7:email', fence: 5, job: '7', admitted: true, why: 'a later holder raises the job floor' },
      { key: '7:charge', fence: 4, job: '7', admitted: false, why: 'the key saw 2, but the job has seen 5' },
      { key: '8:notify', fence: 1, job: '8', admitted: true, why: "job 7's floor does not reach job 8" },
    ];
    const results = steps.map(({ key, fence, job }) =>
      ledger.transaction(() => (job === undefined ? ledger.admitFence(key, fence) : ledger.admitFence(key, fence, job))),
    );
    expect(results.map((admitted, n) => `${steps[n]!.why}: ${admitted}`)).toEqual(steps.map(({ why, admitted }) => `${why}: ${admitted}`));
    // A refused fence leaves the floors as they were.
    expect(ledger.db.prepare('SELECT job, fence FROM world_job_fences ORDER BY job').all()).toEqual([
      { job: '7', fence: 5 },
      { job: '8', fence: 1 },
    ]);
    expect(ledger.db.prepare('SELECT idempotency_key AS key, fence FROM world_fences ORDER BY key').all()).toEqual([
      { key: '7:charge', fence: 2 },
      { key: '7:email', fence: 5 },
      { key: '7:notify', fence: 2 },
      { key: '8:notify', fence: 1 },
    ]);
  });

  it('a keyed idempotent tool applies once: a repeat replays the stored result and writes nothing', () => {
    const { file, ledger } = open();
    const first = applyCall(ledger, call('write_file', 'job-1:write', { path: 'a.txt', content: 'v1' }), at());
    const again = applyCall(ledger, call('write_file', 'job-1:write', { content: 'v1', path: 'a.txt' }), at());
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ ...first, replayed: true });
    expect(readLedger(file)).toHaveLength(1);
    expect((applyCall(ledger, call('read_file', 'r', { path: 'a.txt' }), at()).result as { version: number }).version).toBe(1);
  });

  it('refuses an idempotent key reused with other arguments or by another tool (409), applying nothing', () => {
    const { file, ledger } = open();
    applyCall(ledger, call('write_file', 'k', { path: 'a.txt', content: 'v1' }), at());
    const reused = (c: WorldCall) => {
      try {
        applyCall(ledger, c, at());
      } catch (error) {
        return error;
      }
      return null;
    };
    for (const c of [call('write_file', 'k', { path: 'a.txt', content: 'v2' }), call('create_branch', 'k', { name: 'b' })]) {
      const error = reused(c);
      expect(error).toBeInstanceOf(WorldError);
      expect(error).toMatchObject({ code: 'WORLD_KEY_REUSED', status: 409 });
    }
    expect(readLedger(file)).toHaveLength(1);
  });

  it('a non-idempotent tool applies again under the same key: the duplicate is visible', () => {
    const { file, ledger } = open();
    for (let i = 0; i < 3; i++) applyCall(ledger, call('send_email', 'job-2:notify', { to: 'a@example.com', subject: 'hi' }), at());
    const byKey = effectsByKey(file);
    expect(byKey.get('job-2:notify')?.map((e) => e.externalRef)).toEqual(['em_000001', 'em_000002', 'em_000003']);
  });

  it('the UNIQUE index refuses a second idempotent row for a key even if the look-up were skipped', () => {
    const { ledger } = open();
    const base = { tool: 'write_file', argsDigest: 'd', meta: META, at: at(), refPrefix: 'fv_', result: () => ({}), compensates: null };
    ledger.insertEffect({ ...base, key: 'k', idempotent: true });
    expect(() => ledger.insertEffect({ ...base, key: 'k', idempotent: true })).toThrow(/UNIQUE/);
    // Non-idempotent rows under that key are allowed: they are how duplicates show.
    expect(() => ledger.insertEffect({ ...base, key: 'k', idempotent: false })).not.toThrow();
  });

  it('records calls with their outcome, and outlives the connection that wrote it', () => {
    const { file, ledger } = open();
    const seq = ledger.receiveCall({ key: 'k', tool: 'charge_customer', meta: META, at: at() });
    const second = ledger.receiveCall({ key: null, tool: null, meta: null, at: at() });
    expect([seq, second]).toEqual([1, 2]);
    ledger.finishCall(seq, { outcome: 'dropped', status: null, faultId: 3, effectSeq: 9 });
    ledger.close();
    const reopened = WorldLedger.open(file);
    cleanup.push(() => reopened.close());
    expect(reopened.calls()[0]).toMatchObject({ seq: 1, key: 'k', outcome: 'dropped', status: null, faultId: 3, effectSeq: 9, worker: 'w1' });
    expect(readCalls(file)[1]).toMatchObject({ seq: 2, key: null, outcome: null });
  });

  it('reading a missing ledger file is an error, not an empty ledger', () => {
    const run = tempRunDir('ledger-missing');
    cleanup.push(run.remove);
    expect(() => readLedger(join(run.dir, 'nope.db'))).toThrow(expect.objectContaining({ code: 'WORLD_LEDGER_MISSING' }));
  });
});
