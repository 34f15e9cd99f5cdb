import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptedJobs, enqueueCounts, enqueuedLines, isProducerLog, racedCalls } from '../../src/drill/accepted-jobs.js';
import { gatherEvidence, missingEvidenceError, readLogs } from '../../src/drill/gather-evidence.js';
import type { LeaseReport } from '../../src/faults/clock-book.js';
import type { EvidenceAvailability, TimelineEvent } from '../../src/judge/evidence.js';
import type { ClockOffset } from '../../src/kernel/time-base.js';
import type { QueueConnection } from '../../src/port/adapter.js';
import type { ResolvedJob, ResolvedScenario } from '../../src/scenarios/resolve.js';
import { BUILT_IN_DEFAULTS, type Settings } from '../../src/scenarios/schema.js';
import { WorldLedger } from '../../src/world/ledger.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { ALL_AVAILABLE, cleanBuilder, digestOf, planOf, SECRET, STEPS } from '../judge/invariants/evidence-builder.js';

/*
 * What a run directory's logs say about enqueues, read as the drill reads
 * them: producer p1 enqueued three keys and was killed while writing its
 * fourth line, restarted (p1.2) and enqueued all four again; producer p2
 * raced it, one of its enqueues failing. Only the producers' own lines count.
 */

const [K1, K2, K3, K4, NEVER] = ['one', 'two', 'three', 'four', 'never'].map((name) => digestOf(`key ${name}`)) as [
  string,
  string,
  string,
  string,
  string,
];

const enqueued = (key: string, jobId: string, created: boolean) => `${JSON.stringify({ event: 'enqueued', key, jobId, created })}\n`;
const failed = (key: string) => `${JSON.stringify({ event: 'enqueue-failed', key, definite: false, error: 'the store did not answer in time' })}\n`;

/** The logs of the run directory, by file name. */
const LOGS: Record<string, string> = {
  // Killed after its third line, halfway through the fourth: a line with no newline, cut after "enqueued".
  'p1.1.log': `${enqueued(K1, '1', true)}${enqueued(K2, '2', true)}${enqueued(K3, '3', true)}${enqueued(K4, '4', true).slice(0, 40)}`,
  'p1.1.log.err': `warning: ${enqueued(K1, '1', true)}`,
  'p1.2.log': `${enqueued(K1, '1', false)}${enqueued(K2, '2', false)}${enqueued(K3, '3', false)}${enqueued(K4, '4', true)}`,
  'p2.1.log': `${enqueued(K1, '1', false)}${failed(K2)}${enqueued(K3, '3', false)}${JSON.stringify({ event: 'produced', pid: 4321, created: 0, existing: 2 })}\n`,
  // A worker that prints the word is no producer.
  'w1.1.log': `{"event":"claimed","note":"enqueued"}\n${enqueued(K1, '1', true)}`,
};

function planned(key: string, n: number): ResolvedJob {
  return { n, key, plan: planOf(STEPS.write), maxAttempts: 3, expect: { status: 'done' } };
}

const JOBS: ResolvedJob[] = [K1, K2, K3, K4, NEVER].map((key, index) => planned(key, index + 1));

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('gather');
  for (const [name, text] of Object.entries(LOGS)) writeFileSync(join(temp.dir, name), text);
  writeFileSync(join(temp.dir, 'jobs.json'), '[]');
  writeFileSync(join(temp.dir, 'notes.txt'), enqueued(K1, '1', true));
});
afterEach(() => temp.remove());

describe('readLogs', () => {
  it("reads every process's log and stderr, whole and in name order, and nothing else", () => {
    const logs = readLogs(temp.dir);
    expect(logs.map((l) => l.name)).toEqual(['p1.1.log', 'p1.1.log.err', 'p1.2.log', 'p2.1.log', 'w1.1.log']);
    for (const log of logs) expect(log.text).toBe(LOGS[log.name]);
  });
});

describe('which producer created which key', () => {
  it('counts every enqueue a producer reported, and each time it was told it created the job', () => {
    const accepted = acceptedJobs(JOBS, readLogs(temp.dir));
    expect(accepted.map(({ key, enqueueAttempts, createdCount }) => ({ key, enqueueAttempts, createdCount }))).toEqual([
      // p1.1, p1.2, p2.1; only p1.1 created it (the worker's line and p1's stderr do not count).
      { key: K1, enqueueAttempts: 3, createdCount: 1 },
      // p2's enqueue failed: no acceptance.
      { key: K2, enqueueAttempts: 2, createdCount: 1 },
      { key: K3, enqueueAttempts: 3, createdCount: 1 },
      // p1.1 was killed before it finished saying so; p1.2 created it.
      { key: K4, enqueueAttempts: 1, createdCount: 1 },
      { key: NEVER, enqueueAttempts: 0, createdCount: 0 },
    ]);
  });

  it("keeps each planned job's plan and expectation, in the scenario's order", () => {
    const jobs = [planned(K3, 1), { ...planned(K1, 2), plan: planOf(STEPS.email), expect: { status: 'review' as const, reason: 'exhausted' } }];
    expect(acceptedJobs(jobs, readLogs(temp.dir))).toEqual([
      // These logs say nothing of when each call was made: no race can be placed.
      { key: K3, plan: planOf(STEPS.write), enqueueAttempts: 3, createdCount: 1, raced: false, expect: { status: 'done' } },
      { key: K1, plan: planOf(STEPS.email), enqueueAttempts: 3, createdCount: 1, raced: false, expect: { status: 'review', reason: 'exhausted' } },
    ]);
  });

  it('a half line at the end of a killed producer’s log counts for nothing; a whole last line without its newline still counts', () => {
    expect(enqueuedLines(LOGS['p1.1.log']!).map((e) => e.key)).toEqual([K1, K2, K3]);
    // Cut before the event's name is even written.
    expect(enqueuedLines(`${enqueued(K1, '1', true)}{"eve`)).toEqual([{ event: 'enqueued', key: K1, jobId: '1', created: true }]);
    expect(enqueuedLines(enqueued(K2, '2', false).trimEnd())).toEqual([{ event: 'enqueued', key: K2, jobId: '2', created: false }]);
    expect(enqueuedLines('')).toEqual([]);
  });

  it('a finished line that is not JSON is a bug, and is not passed over', () => {
    expect(() => enqueuedLines(`{"event":"enqueued","key":\n${enqueued(K1, '1', true)}`)).toThrow(SyntaxError);
  });

  it('reads only the producers’ own logs', () => {
    expect(['p1.1.log', 'p12.3.log', 'p1.1.log.err', 'w1.1.log', 'coordinator.1.log', 'pq.1.log'].filter(isProducerLog)).toEqual([
      'p1.1.log',
      'p12.3.log',
    ]);
    expect(enqueueCounts([{ name: 'w1.1.log', text: enqueued(K1, '1', true) }]).size).toBe(0);
  });
});

describe('which keys raced: two producers had calls on it in flight at once', () => {
  const timed = (key: string, created: boolean, calledAt: number, answeredAt: number) =>
    `${JSON.stringify({ event: 'enqueued', key, jobId: '1', created, calledAt, answeredAt })}\n`;
  const call = (producer: string, calledAt?: number, answeredAt?: number) => ({ producer, calledAt, answeredAt });

  it.each([
    { why: 'overlapping calls of two producers', calls: [call('p1', 100, 102), call('p2', 101, 103)], raced: true },
    { why: 'calls of two producers in the same millisecond', calls: [call('p1', 100, 101), call('p2', 101, 101)], raced: true },
    { why: 'one producer after the other', calls: [call('p1', 100, 101), call('p2', 102, 103)], raced: false },
    { why: "one producer's two runs (a restart)", calls: [call('p1', 100, 102), call('p1', 101, 103)], raced: false },
    { why: 'calls whose times nobody wrote', calls: [call('p1'), call('p2')], raced: false },
    { why: 'a single call', calls: [call('p1', 100, 102)], raced: false },
  ])('$why: raced $raced', ({ calls, raced }) => {
    expect(racedCalls(calls)).toBe(raced);
  });

  it('reads the race from the producers’ logs, naming each producer by its log (p1.2 is p1)', () => {
    const counts = enqueueCounts([
      { name: 'p1.1.log', text: timed(K1, true, 100, 104) + timed(K2, true, 105, 106) },
      { name: 'p1.2.log', text: timed(K2, false, 105, 106) },
      { name: 'p2.1.log', text: timed(K1, false, 103, 107) + timed(K2, false, 110, 111) },
    ]);
    expect(Object.fromEntries(counts)).toEqual({
      [K1]: { tried: 2, created: 1, raced: true },
      [K2]: { tried: 3, created: 1, raced: false },
    });
  });
});

describe('gatherEvidence', () => {
  type Store = ReturnType<ReturnType<typeof cleanBuilder>['b']['build']>;

  /** A queue connection that gives the crafted store's snapshot and checkpoints (or, per source, `broken`: the value or the failure it gives). */
  function queueOf(store: Store, broken: { snapshot?: () => unknown; rows?: () => unknown } = {}): QueueConnection {
    return {
      snapshot: async () => (broken.snapshot ? broken.snapshot() : { jobs: store.jobs, history: store.events }),
      saga: { rows: async () => (broken.rows ? broken.rows() : store.txLog), incidents: async () => store.incidents },
    } as unknown as QueueConnection;
  }

  function scenarioOf(settings: Partial<Settings> = {}): ResolvedScenario {
    return {
      name: 'gathered',
      description: 'read back',
      covers: null,
      settings: { ...structuredClone(BUILT_IN_DEFAULTS), lease_ms: 900, skew_margin_ms: 75, ...settings } as Settings,
      seed: 3,
      workers: [{ id: 'w1', clockSkewMs: 0 }],
      jobs: JOBS,
      pointFaults: [],
      worldFaults: [],
      invariants: ['no-lost-job'],
      secrets: [SECRET],
    };
  }

  /** The harness's record of the processes it started: w1 once, p1 twice (each left its log above). */
  const TIMELINE: TimelineEvent[] = [
    { at: '2026-08-25T10:00:00.000Z', kind: 'spawn', process: 'w1#1', pid: 11, detail: 'worker w1' },
    { at: '2026-08-25T10:00:00.100Z', kind: 'spawn', process: 'p1#1', pid: 12, detail: 'producer p1' },
    { at: '2026-08-25T10:00:00.200Z', kind: 'restart', process: 'p1#2', pid: 13, detail: 'producer p1' },
  ];

  /** The clocks the control channels measured, and a lease a worker reported: passed through as the harness kept them. */
  const CLOCKS: ClockOffset[] = [{ process: 'w1', lowMs: -41, highMs: -39, samples: 6 }];
  const LEASES: LeaseReport[] = [
    {
      process: 'w1',
      at: '2026-08-25T10:00:00.300Z',
      job: '1',
      attempt: 1,
      epoch: 1,
      worker: 'w1',
      leaseUntil: '2026-08-25T10:00:01.160Z',
      by: 'claim',
    },
  ];

  /** A ledger file as the world leaves it (its tables, no effect). */
  function writeLedger(): string {
    const file = join(temp.dir, 'ledger.db');
    WorldLedger.open(file).close();
    return file;
  }

  async function gathered(options: { queue?: QueueConnection; ledger?: string; scenario?: ResolvedScenario; available?: EvidenceAvailability } = {}) {
    const store = cleanBuilder().b.build();
    return gatherEvidence({
      scenario: options.scenario ?? scenarioOf(),
      runDir: temp.dir,
      queue: options.queue ?? queueOf(store),
      available: options.available ?? ALL_AVAILABLE,
      ledger: options.ledger ?? writeLedger(),
      timeline: TIMELINE,
      clocks: { queue: 'caller', offsets: CLOCKS, leases: LEASES },
      atRest: false,
      retryPolicy: { baseMs: 20, capMs: 200, jitterMs: 10 },
    });
  }

  it("puts the queue's snapshot and checkpoints, the ledger, the logs, the producers' counts and the scenario's settings together", async () => {
    const store = cleanBuilder().b.build();
    const result = await gathered({ queue: queueOf(store) });
    expect(result).toEqual({
      evidence: {
        scenario: 'gathered',
        available: ALL_AVAILABLE,
        jobs: store.jobs,
        events: store.events,
        txLog: store.txLog,
        incidents: store.incidents,
        // The world's ledger, read: it applied nothing, received no call or delivery report, and fences (the default).
        effects: [],
        world: { calls: [], deliveries: [], fenced: true },
        accepted: acceptedJobs(JOBS, readLogs(temp.dir)),
        timeline: TIMELINE,
        queueClock: 'caller',
        clocks: CLOCKS,
        leases: LEASES,
        logs: readLogs(temp.dir),
        artefacts: [],
        secrets: [SECRET],
        atRest: false,
        leaseMs: 900,
        skewMarginMs: 75,
        retryPolicy: { baseMs: 20, capMs: 200, jitterMs: 10 },
      },
      missing: [],
    });
  });

  it('says the ledger is missing when the world left no file, rather than judging an empty one', async () => {
    const { evidence, missing } = await gathered({ ledger: join(temp.dir, 'nowhere.db') });
    expect(missing).toEqual([expect.stringMatching(/^the world's ledger could not be read \(no ledger file at .*nowhere\.db\)/)]);
    expect(missingEvidenceError(missing)).toMatch(/^evidence missing, so nothing can be judged: the world's ledger/);
    expect(evidence.effects).toEqual([]);
  });

  it('says which log is missing: a process the harness started, or a producer that never wrote one', async () => {
    rmSync(join(temp.dir, 'w1.1.log'));
    const { missing } = await gathered({ scenario: scenarioOf({ producers: 3 }) });
    expect(missing).toEqual([
      'the log w1.1.log of a process the harness started is missing',
      'the log p3.1.log is missing: what that producer was told of its enqueues cannot be judged',
    ]);
  });

  it("says the queue's history is missing when the queue says it keeps one and gives none", async () => {
    const store = cleanBuilder().b.build();
    const { missing } = await gathered({ queue: queueOf(store, { snapshot: () => ({ jobs: store.jobs }) }) });
    expect(missing).toEqual(["the queue's history (it says it keeps one): the queue gave nothing, not a list"]);
  });

  it('does not miss a history the queue says it cannot keep: the invariants that need it are not judged', async () => {
    const store = cleanBuilder().b.build();
    const available = { ...ALL_AVAILABLE, history: 'keeps no per-attempt history' };
    const { evidence, missing } = await gathered({ queue: queueOf(store, { snapshot: () => ({ jobs: store.jobs, history: [] }) }), available });
    expect(missing).toEqual([]);
    expect(evidence.events).toEqual([]);
  });

  it('says so when the queue cannot be read at all, or gives checkpoints that are no list', async () => {
    const store = cleanBuilder().b.build();
    const failing = queueOf(store, {
      snapshot: () => {
        throw new Error('SQLITE_CANTOPEN: unable to open database file');
      },
      rows: () => null,
    });
    const { missing } = await gathered({ queue: failing });
    expect(missing).toEqual([
      "the queue's jobs and history could not be read: SQLITE_CANTOPEN: unable to open database file",
      "the saga's checkpoints: the queue gave object, not a list",
    ]);
  });

  it('says so when a finished line of a producer log is not JSON', async () => {
    writeFileSync(join(temp.dir, 'p2.1.log'), '{"event":"enqueued","key":\n');
    const { missing } = await gathered();
    expect(missing).toEqual([expect.stringMatching(/^the producers' logs could not be read line by line \(.*JSON.*\)/)]);
  });

  it('has no error when nothing is missing', () => {
    expect(missingEvidenceError([])).toBeNull();
  });
});
