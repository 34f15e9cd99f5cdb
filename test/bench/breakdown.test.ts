import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { breakdown, startedTimes } from '../../src/bench/drill/breakdown.js';
import type { ScenarioReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { passingReport } from '../report/fixture.js';

const T = (ms: number) => new Date(Date.UTC(2026, 7, 25, 10) + ms).toISOString();

/** A scenario that ran 10 s: provisioned in 0.2 s, drilled 8 s (from 0.2 s), then stopped, gathered, released and judged. */
function timedScenario(): ScenarioReport {
  const base = passingReport().scenarios[0]!;
  return {
    ...base,
    phases: { startedAt: T(0), provisionMs: 200, drillMs: 8000, stopMs: 500, evidenceMs: 600, teardownMs: 300, judgeMs: 400 },
    timeline: [
      { at: T(200), kind: 'spawn', process: 'world#1', detail: 'world' },
      { at: T(300), kind: 'spawn', process: 'w1#1', detail: 'worker w1' },
      { at: T(400), kind: 'spawn', process: 'coordinator#1', detail: 'coordinator' },
      { at: T(1800), kind: 'note', detail: 'producers p1 released to begin enqueueing together at …' },
      { at: T(3000), kind: 'kill', process: 'w1#1', detail: 'SIGKILL while held at after_claim', point: 'after_claim', job: '1' },
      { at: T(3100), kind: 'restart', process: 'w1#2', detail: 'worker w1' },
      { at: T(5000), kind: 'fault-fired', process: 'w1#2', detail: 'pause', action: 'pause', ms: 1000 },
      { at: T(8800), kind: 'at-rest', detail: 'drill ended: at-rest' },
    ],
    recovery: [
      {
        process: 'w1#1',
        killedAt: T(3000),
        point: 'after_claim',
        jobId: '1',
        reclaimedAt: T(3500),
        settledAt: T(3600),
        killToReclaimMs: 500,
        killToSettledMs: 600,
      },
    ],
    jobs: base.jobs.map((job) => ({
      ...job,
      events: [
        { kind: 'transition', at: T(7700), seq: 9, from: 'running', to: 'done', attempt: 2, epoch: 2, worker: 'w2', actor: 'worker', reason: 'done' },
      ],
    })),
  };
}

describe("the drill family's breakdown of a scenario's time", () => {
  const started = new Map([
    ['w1#1', Date.parse(T(2000))],
    ['coordinator#1', Date.parse(T(1500))],
    ['w1#2', Date.parse(T(4000))],
  ]);

  it('splits the drill phase into start-up, fault waits, restarts, the rest check and the rest, each moment counted once', () => {
    const row = breakdown(timedScenario(), started)!;
    expect(row).toMatchObject({
      wallMs: 10_000,
      provisionMs: 200,
      // From the drill's start (0.2 s) until w1 started (2.0 s): the producers' release (1.8 s) came before.
      startupMs: 1800,
      // The kill until its job was claimed again (0.5 s), and the pause (1 s).
      faultWaitMs: 1500,
      // w1's restart (3.1 s) until it started (4.0 s), less the kill's wait it overlaps (to 3.5 s).
      restartMs: 500,
      // The last state change (7.7 s) until at rest, clipped to the drill's end (8.2 s).
      restCheckMs: 500,
      stopMs: 500,
      evidenceMs: 600,
      teardownMs: 300,
      judgeMs: 400,
    });
    expect(row.startupMs + row.faultWaitMs + row.restartMs + row.restCheckMs + row.workMs).toBe(8000);
  });

  it('has nothing to say of a scenario written without phases', () => {
    const { phases: _none, ...old } = timedScenario();
    expect(breakdown(old, started)).toBeNull();
  });

  describe('startedTimes', () => {
    let run: ReturnType<typeof tempRunDir>;
    beforeEach(() => {
      run = tempRunDir('breakdown');
    });
    afterEach(() => run.remove());

    it("reads each incarnation's `started` line from its log, skipping lines that are not JSON", () => {
      writeFileSync(join(run.dir, 'w1.1.log'), `not json "started"\n{"at":"${T(2000)}","source":"worker:w1","event":"started"}\n`);
      writeFileSync(join(run.dir, 'w1.2.log'), `{"at":"${T(4000)}","source":"worker:w1","event":"claimed"}\n`);
      writeFileSync(join(run.dir, 'p1.1.log.err'), 'noise');
      expect(startedTimes(run.dir)).toEqual(new Map([['w1#1', Date.parse(T(2000))]]));
    });
  });
});
