import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { QUEUE_IMPLS } from '../../src/queues/registry.js';
import type { ScenarioReport } from '../../src/report/schema.js';
import { catchIn, renderSelftest, type SelftestRow } from '../../src/selftest/selftest.js';
import { skipWithoutPg } from '../helpers/postgres.js';
import { tempRunDir } from '../helpers/run-dir.js';

// The fast subset of the shipped scenarios that, between them, reach every
// mistake the variants make; the full self-test (`queue-drill selftest`) runs
// them all plus a bounded explore.
const FAST = [
  'crash-after-claim',
  'crash-after-write',
  'zombie-complete',
  'zombie-complete-after-done',
  'heartbeat-after-sweep',
  'response-lost-to-review',
  'review-stays-put',
  'concurrent-enqueue',
  'compensation-failed',
  'secrets-stay-out',
  'retry-storm',
  'poison-job-queue-alone',
];

const VARIANTS = ['crash-loop', 'exhausted-left-in-retry', 'no-backoff'];

// Where PostgreSQL does not answer (and is not required: see the helper), the postgres row says why it did not run.
const PG_SKIPPED = skipWithoutPg("the self-test's drills of the postgres queue (test/selftest/selftest.test.ts)");

describe('queue-drill selftest (fast subset)', () => {
  // Every variant is run on the scenario that catches it in variant-catches.test.ts; here the
  // selftest command itself, on the sound queues and on the variants the shipped drill must
  // catch (a crash loop, an exhausted job left in retry, retries with no backoff), so the
  // test's time stays a few minutes. `queue-drill selftest` runs them all.
  it('catches the broken variants it is given and never flags the reference queue, on SQLite or on PostgreSQL', { timeout: 600_000 }, async () => {
    const run = tempRunDir('selftest');
    try {
      const result = await execa(
        process.execPath,
        // --parallel 1: one drill at a time (see vitest.config.ts).
        [
          CLI_PATH,
          'selftest',
          '--only',
          FAST.join(','),
          '--queues',
          ['reference', 'postgres', ...VARIANTS].join(','),
          '--explore-runs',
          '0',
          '--parallel',
          '1',
          '--out',
          run.dir,
          '--json',
        ],
        {
          reject: false,
          env: { CI: 'true' },
        },
      );
      const rows = JSON.parse(result.stdout) as SelftestRow[];
      expect(rows.map((r) => r.queue)).toEqual(['reference', 'postgres', ...VARIANTS]);
      for (const row of rows.filter((r) => !r.broken)) {
        expect(row.flagged, `${row.queue}, a sound queue, is never flagged`).toEqual([]);
        expect(row.expectedBreaks, `${row.queue}, a sound queue, expects nothing to break`).toEqual([]);
        if (row.queue === 'postgres' && PG_SKIPPED) expect(row.skipped, 'postgres says why it did not run').toMatch(/PostgreSQL/);
        else expect(row.skipped, `${row.queue} ran`).toBeNull();
      }
      expect(rows.filter((r) => !r.broken).map((r) => r.queue)).toEqual(['reference', 'postgres']);
      const broken = rows.filter((r) => r.broken);
      expect(broken.length, 'there are broken variants to catch').toBeGreaterThan(0);
      for (const row of broken) {
        expect(row.caughtBy, `${row.queue} is caught`).not.toBeNull();
        expect(row.expectedBreaks, `${row.queue}: the row carries its declaration`).toEqual([
          ...(QUEUE_IMPLS.find((q) => q.name === row.queue)?.breaks ?? []),
        ]);
        expect(row.expectedBreaks, `${row.queue} is caught by an invariant its mistake breaks`).toContain(row.caughtBy!.invariant);
        expect(row.caughtBy!.faults, `${row.queue}: a scenario of at most 3 faults catches it`).toBeLessThanOrEqual(3);
        expect(row.caughtBy!.replay).toContain(`--queue ${row.queue}`);
      }
      expect(result.exitCode).toBe(0);
      console.log(
        rows
          .map(
            (r) => `${r.queue}: ${r.caughtBy ? `${r.caughtBy.invariant} @ ${r.caughtBy.scenario}` : 'clean'} (${(r.durationMs / 1000).toFixed(1)}s)`,
          )
          .join('\n'),
      );
    } finally {
      run.remove();
    }
  });
});

/** A scenario's report, as much of it as the self-test reads. */
function scenario(name: string, broken: string[]): ScenarioReport {
  return {
    name,
    verdict: broken.length > 0 ? 'fail' : 'pass',
    invariants: ['no-lost-job', 'lease-released', 'single-holder', 'history-complete'].map((id) => ({
      id,
      status: broken.includes(id) ? 'broken' : 'held',
      evidence: broken.includes(id) ? [`job 1: ${id} broke`] : [],
    })),
    faults: [{}],
    worldFaults: [],
    replay: `queue-drill run --only ${name}`,
  } as unknown as ScenarioReport;
}

const ROW: SelftestRow = {
  queue: 'claim-no-transaction',
  description: 'a variant',
  broken: true,
  expectedBreaks: ['single-holder'],
  caughtBy: null,
  flagged: [],
  exploreViolations: 0,
  durationMs: 1000,
  skipped: null,
  ok: false,
};

describe('catchIn', () => {
  it('counts a variant as caught only where one of its declared invariants broke, and names that one', () => {
    const scenarios = [
      scenario('clean', []),
      scenario('other-mistake', ['history-complete']),
      scenario('own-mistake', ['lease-released', 'single-holder', 'history-complete']),
    ];
    expect(catchIn(scenarios, ['single-holder'])).toEqual({
      invariant: 'single-holder',
      scenario: 'own-mistake',
      faults: 1,
      replay: 'queue-drill run --only own-mistake',
    });
    expect(catchIn(scenarios, ['lease-released', 'single-holder'])?.invariant).toBe('lease-released');
    expect(catchIn(scenarios, ['no-lost-job'])).toBeNull();
    expect(catchIn(scenarios, [])).toBeNull();
  });
});

describe('renderSelftest', () => {
  it('shows what each queue was expected to break beside what caught it', () => {
    const table = renderSelftest([
      { ...ROW, caughtBy: { invariant: 'single-holder', scenario: 'crash-after-claim', faults: 1, replay: '' }, ok: true },
      { ...ROW, queue: 'reference', broken: false, expectedBreaks: [], ok: true },
    ]);
    const [header, caught, clean] = table.split('\n');
    expect(header).toMatch(/verdict\s+expected to break\s+caught by/);
    expect(caught).toMatch(/^claim-no-transaction\s+caught\s+single-holder\s+single-holder @ crash-after-claim\s+1/);
    expect(clean).toMatch(/^reference\s+clean\s+-\s+-\s+-/);
  });

  it('says when a variant was flagged, but not by an invariant it declares', () => {
    const flagged = { scenario: 'crash-after-claim', verdict: 'fail' as const, broken: ['history-complete'] };
    const table = renderSelftest([
      { ...ROW, flagged: [flagged] },
      { ...ROW, queue: 'undeclared', expectedBreaks: [] },
    ]);
    expect(table).toContain('MISSED');
    expect(table).toContain('none of its own; flagged by crash-after-claim: history-complete');
    expect(table).toContain('(declares no invariant its mistake breaks)');
  });
});
