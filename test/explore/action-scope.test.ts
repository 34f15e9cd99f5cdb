import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exploreScope, NO_NETWORK } from '../../src/explore/action-scope.js';
import { coverCells, coverSchedules } from '../../src/explore/cover.js';
import { exploreLanes } from '../../src/explore/lanes.js';
import { type PointFaultSpec, type Schedule, scheduleArbitrary } from '../../src/explore/schedule.js';
import { soakSchedules } from '../../src/explore/soak.js';
import { exploreFile, scheduleScenario } from '../../src/explore/to-scenario.js';
import { POINT_FAULT_ACTIONS } from '../../src/faults/actions/index.js';
import { isHoldersPoint } from '../../src/faults/points.js';
import { queueImpl } from '../../src/queues/registry.js';
import { ScenarioFileSchema } from '../../src/scenarios/schema.js';

/*
 * Which point fault actions explore draws on a queue: the network's only on a
 * queue reached over the network, drop_reply only on one that names the
 * request carrying its complete. Judged from fast-check's draws and the cover,
 * without running anything.
 */

const NETWORK_ACTIONS: readonly string[] = POINT_FAULT_ACTIONS.filter((action) => action.network).map((action) => action.name);
const EMBEDDED = exploreScope({ needs: [] });
const UNNAMED = exploreScope({ needs: ['redisUrl'] });
const NETWORKED = exploreScope({ needs: ['pgUrl'], wireRequests: { complete: { command: 'COMMIT' } } });

const points = (schedules: readonly Schedule[]) => schedules.flatMap((s) => s.faults.filter((f): f is PointFaultSpec => f.kind === 'point'));
const drawn = (scope: typeof NO_NETWORK) => fc.sample(scheduleArbitrary(scope), { seed: 17, numRuns: 500 });

describe("explore's point actions", () => {
  it('are the network actions that say so: partition, latency, reset, drop_reply', () => {
    expect([...NETWORK_ACTIONS].sort()).toEqual(['drop_reply', 'latency', 'partition', 'reset']);
  });

  it('on a queue without a network: none of the network actions, drawn or covered', () => {
    for (const scope of [NO_NETWORK, EMBEDDED, exploreScope({}), exploreScope(queueImpl('reference'))]) {
      expect(scope.network).toBe(false);
      expect(scope.actions.map((a) => a.name)).toEqual(['crash', 'exit', 'pause', 'block', 'error', 'delay']);
      expect(points(drawn(scope)).filter((f) => NETWORK_ACTIONS.includes(f.action))).toEqual([]);
      expect(coverCells(scope).filter((cell) => NETWORK_ACTIONS.includes(cell.action))).toEqual([]);
      expect(points(coverSchedules(5, scope)).filter((f) => NETWORK_ACTIONS.includes(f.action))).toEqual([]);
    }
  });

  it('on a queue without a network: the same draws and the same cover as with no scope at all', () => {
    expect(fc.sample(scheduleArbitrary(EMBEDDED), { seed: 3, numRuns: 200 })).toEqual(fc.sample(scheduleArbitrary(), { seed: 3, numRuns: 200 }));
    expect(coverSchedules(3, EMBEDDED)).toEqual(coverSchedules(3));
  });

  it('on a queue reached over the network that names no request for its complete: every network action but drop_reply', () => {
    expect(UNNAMED.network).toBe(true);
    const actions = new Set(points(drawn(UNNAMED)).map((f) => f.action));
    for (const name of ['partition', 'latency', 'reset']) expect(actions, name).toContain(name);
    expect(actions).not.toContain('drop_reply');
    expect(points(coverSchedules(5, UNNAMED)).filter((f) => f.action === 'drop_reply')).toEqual([]);
  });

  it("on a queue that names its complete's request: drop_reply too, as the loss of that reply, at a worker's points only", () => {
    const faults = points(drawn(NETWORKED));
    for (const name of NETWORK_ACTIONS)
      expect(
        faults.some((f) => f.action === name),
        name,
      ).toBe(true);
    const drops = [...faults, ...points(coverSchedules(5, NETWORKED))].filter((f) => f.action === 'drop_reply');
    expect(drops.length).toBeGreaterThan(0);
    for (const drop of drops) {
      expect(drop.fields).toEqual({ write: 'complete' });
      expect(isHoldersPoint(drop.at), drop.at).toBe(true);
    }
  });

  it("follow the queue's adapter: the reference on PostgreSQL gets every network action", () => {
    const scope = exploreScope(queueImpl('postgres'));
    expect(scope.network).toBe(true);
    expect(scope.actions.map((a) => a.name).filter((name) => NETWORK_ACTIONS.includes(name))).toEqual([
      'partition',
      'latency',
      'reset',
      'drop_reply',
    ]);
  });

  it("are drawn with the fields each action's own draw gives", () => {
    const fieldsOf = (name: string) => new Set(points(drawn(NETWORKED)).flatMap((f) => (f.action === name ? [JSON.stringify(f.fields)] : [])));
    expect(fieldsOf('partition')).toEqual(new Set([JSON.stringify({ ms: 1500 })]));
    expect(fieldsOf('latency')).toEqual(new Set([JSON.stringify({ ms: 300, jitter_ms: 100, for_ms: 1500 })]));
    expect(fieldsOf('reset')).toEqual(new Set([JSON.stringify({})]));
  });
});

describe('with a network, explore and soak', () => {
  it('hand the lanes the cover of that queue, and soak walks it first', () => {
    const cover = coverSchedules(11, NETWORKED);
    const lanes = exploreLanes(11, 200, 2, NETWORKED);
    expect(lanes.flatMap((lane) => lane.examples.map(([schedule]) => schedule)).length).toBe(cover.length);
    expect(new Set(lanes.flatMap((lane) => lane.examples.map(([s]) => JSON.stringify(s))))).toEqual(new Set(cover.map((s) => JSON.stringify(s))));
    const soak = soakSchedules(11, cover.length + 50, NETWORKED);
    expect(soak.slice(0, cover.length)).toEqual(cover);
    expect(points(soak.slice(cover.length)).some((f) => NETWORK_ACTIONS.includes(f.action))).toBe(true);
  });

  it('write valid scenarios files, and fast-check can shrink every covering schedule', () => {
    for (const schedule of [...drawn(NETWORKED).slice(0, 200), ...coverSchedules(9, NETWORKED)]) {
      expect(ScenarioFileSchema.safeParse(exploreFile([scheduleScenario(schedule, 'x', 'x')])).success).toBe(true);
      expect(scheduleArbitrary(NETWORKED).canShrinkWithoutContext(schedule)).toBe(true);
    }
  });
});
