import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { utc } from '../../src/kernel/clock.js';
import { applyCall, type WorldCall } from '../../src/world/effects.js';
import { WorldLedger } from '../../src/world/ledger.js';
import { reconcile } from '../../src/world/reconcile.js';
import { readWorldState, worldState } from '../../src/world/state.js';
import { tempRunDir } from '../helpers/run-dir.js';

const META = { job: '1', step: 's', attempt: 1, worker: 'w1', pid: 1 };
const AT = utc(Date.UTC(2026, 0, 1));
const call = (tool: WorldCall['tool'], key: string, args: Record<string, unknown>): WorldCall => ({ tool, key, args, meta: META });

describe('what the tools do to the world, and their compensations', () => {
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.reverse()) step();
    cleanup = [];
  });
  const open = () => {
    const run = tempRunDir('effects');
    const file = join(run.dir, 'world.db');
    const ledger = WorldLedger.open(file);
    cleanup.push(run.remove, () => ledger.close());
    const apply = (tool: WorldCall['tool'], key: string, args: Record<string, unknown>) => applyCall(ledger, call(tool, key, args), AT);
    const read = (path: string) => apply('read_file', 'read', { path }).result as { exists: boolean; content: string | null; version: number };
    return { file, ledger, apply, read };
  };

  it('restore_file_version puts back the content from before the compensated write', () => {
    const { apply, read, ledger } = open();
    apply('write_file', 'j:w1', { path: 'a.txt', content: 'one' });
    apply('write_file', 'j:w2', { path: 'a.txt', content: 'two' });
    const undo2 = apply('restore_file_version', 'j:w2:undo', { compensates: 'j:w2' });
    expect(undo2.result).toMatchObject({ restored: 'fv_000002', existedBefore: true, laterVersionsOverwritten: 0 });
    expect(read('a.txt')).toEqual({ exists: true, content: 'one', version: 3 });
    // Undoing the first write: the file did not exist before it.
    apply('restore_file_version', 'j:w1:undo', { compensates: 'j:w1' });
    expect(read('a.txt')).toMatchObject({ exists: false, content: null });
    // A compensation is keyed: a retry replays, restoring nothing twice.
    expect(apply('restore_file_version', 'j:w2:undo', { compensates: 'j:w2' })).toMatchObject({ replayed: true, externalRef: undo2.externalRef });
    expect(read('a.txt').exists).toBe(false);
    expect(
      ledger
        .effects()
        .filter((e) => e.tool === 'restore_file_version')
        .map((e) => e.compensates),
    ).toEqual(['j:w2', 'j:w1']);
  });

  it('compensating an effect that never happened succeeds with nothing_to_compensate', () => {
    const { apply } = open();
    for (const [tool, key] of [
      ['restore_file_version', 'u1'],
      ['delete_branch', 'u2'],
      ['unpublish_article', 'u3'],
    ] as const) {
      const undo = apply(tool, key, { compensates: 'never:happened' });
      expect(undo.result, tool).toEqual({ nothing_to_compensate: true });
      expect(undo.replayed).toBe(false);
    }
  });

  it('refuses to compensate a key that belongs to another tool', () => {
    const { apply } = open();
    apply('charge_customer', 'j:charge', { customer: 'c', amount: 1 });
    expect(() => apply('restore_file_version', 'j:undo', { compensates: 'j:charge' })).toThrow(
      expect.objectContaining({ code: 'WORLD_COMPENSATION_MISMATCH', status: 409 }),
    );
  });

  it('delete_branch deletes the branch that call created, and only that', () => {
    const { apply, file, ledger } = open();
    apply('create_branch', 'j:branch', { name: 'feature/x' });
    apply('create_branch', 'other:branch', { name: 'main' });
    // Created by someone else before: this call created nothing.
    expect(apply('create_branch', 'j:main', { name: 'main' }).result).toEqual({ created: false });
    expect(worldState(ledger.db).branches.map((b) => b.name)).toEqual(['feature/x', 'main']);
    expect(apply('delete_branch', 'j:branch:undo', { compensates: 'j:branch' }).result).toEqual({ deleted: true, branch: 'br_000001' });
    expect(apply('delete_branch', 'j:main:undo', { compensates: 'j:main' }).result).toMatchObject({ deleted: false });
    expect(readWorldState(file).branches.map((b) => b.name)).toEqual(['main']);
  });

  it('publish_article repeats (not idempotent) and unpublish_article undoes every publication under the key', () => {
    const { apply, ledger } = open();
    apply('publish_article', 'j:pub', { slug: 'launch' });
    const second = apply('publish_article', 'j:pub', { slug: 'launch' });
    expect(second).toMatchObject({ replayed: false, result: { publication: 'pub_000002', publications: 2 } });
    expect(worldState(ledger.db).articles).toEqual([{ slug: 'launch', published: true, publications: 2 }]);
    expect(apply('unpublish_article', 'j:pub:undo', { compensates: 'j:pub' }).result).toEqual({
      unpublished: true,
      publications: ['pub_000001', 'pub_000002'],
    });
    expect(worldState(ledger.db).articles[0]!.published).toBe(false);
  });

  it('reconcile answers completed (with a duplicate count), not_executed, and unknown for a tool without lookup', () => {
    const { apply, ledger } = open();
    apply('charge_customer', 'j:charge', { customer: 'c', amount: 5 });
    expect(reconcile(ledger, 'charge_customer', 'j:charge')).toEqual({
      status: 'completed',
      result: { charge: 'ch_000001', status: 'succeeded' },
      externalRef: 'ch_000001',
      applied: 1,
    });
    apply('charge_customer', 'j:charge', { customer: 'c', amount: 5 });
    expect(reconcile(ledger, 'charge_customer', 'j:charge')).toMatchObject({ externalRef: 'ch_000001', applied: 2 });
    expect(reconcile(ledger, 'charge_customer', 'j:other')).toEqual({ status: 'not_executed' });
    // The key exists, but for another tool: this tool never ran under it.
    expect(reconcile(ledger, 'write_file', 'j:charge')).toEqual({ status: 'not_executed' });
    apply('send_email', 'j:mail', { to: 'a@example.com', subject: 's' });
    expect(reconcile(ledger, 'send_email', 'j:mail')).toMatchObject({ status: 'unknown', reason: expect.stringContaining('cannot be looked up') });
    expect(reconcile(ledger, 'read_file', 'j:read')).toMatchObject({ status: 'unknown' });
  });

  it('a pure tool writes nothing to the ledger', () => {
    const { apply, ledger } = open();
    expect(apply('read_file', 'k', { path: 'none' })).toEqual({
      result: { exists: false, content: null, version: 0 },
      externalRef: null,
      replayed: false,
      effectSeq: null,
    });
    expect(ledger.effects()).toEqual([]);
  });
});
