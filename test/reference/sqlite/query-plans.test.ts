import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import { CLAIM_INDEX, LEASE_INDEX } from '../../../src/reference/sqlite/schema.js';
import { CLAIM_COMPENSATION_SQL } from '../../../src/reference/sqlite/sql/claim-compensation.js';
import { REFERENCE_CLAIM_RULES } from '../../../src/reference/sqlite/sql/claim-rules.js';
import { claimSql } from '../../../src/reference/sqlite/sql/claim-sql.js';
import { EXPIRED_LEASES_SQL } from '../../../src/reference/sqlite/sql/sweep-expired-leases.js';
import { SqliteQueue } from '../../../src/reference/sqlite/sqlite-queue.js';
import { timerClaim } from '../../../src/variants/review-on-timer/claim.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * What each read of a claim costs, said by SQLite's own planner rather than a
 * stopwatch: the look-up of the next job walks the claim index in the order
 * it claims (no sort of every ready job, which made a claim cost more the
 * longer the backlog: "USE TEMP B-TREE FOR ORDER BY"), the sweep reads only
 * expired leases from the lease index, the coordinator's claim reads the
 * compensating jobs' index. Checked on a fresh store and on one whose
 * planner has statistics (ANALYZE over a backlog), where a planner left to
 * itself could choose otherwise.
 */

const PARAMS = { at: '2026-08-25T10:00:00.000Z', cutoff: '2026-08-25T10:00:00.000Z', coordinatorId: 'c', workerId: 'w', leaseUntil: 'x', id: 1 };

let run: ReturnType<typeof tempRunDir>;
let queue: SqliteQueue;

beforeEach(() => {
  run = tempRunDir('query-plans');
  queue = SqliteQueue.open(join(run.dir, 'queue.db'), { clock: new ManualClock(Date.UTC(2026, 7, 25, 10)), random: seededRandom(1) });
});

afterEach(() => {
  queue.close();
  run.remove();
});

/** The plan's lines for `sql`, as EXPLAIN QUERY PLAN gives them. */
function plan(sql: string): string[] {
  return (queue.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(PARAMS) as Array<{ detail: string }>).map((row) => row.detail);
}

/** A backlog of pending jobs, some claimed (running), some done, and the planner's statistics over them. */
function backlogWithStatistics(): void {
  queue.db.transaction(() => {
    for (let n = 0; n < 3000; n++) queue.enqueue({ key: `k${n}`, action: 'noop', payload: '{}' });
  })();
  for (let n = 0; n < 300; n++) {
    const claimed = queue.claim(`w${n % 4}`)!;
    if (n % 3 !== 0) queue.complete(claimed.lease, 'a'.repeat(64));
  }
  queue.db.exec('ANALYZE');
}

describe.each([
  ['a fresh store', () => undefined],
  ['a store with a backlog and planner statistics', backlogWithStatistics],
])('the SQLite reference on %s', (_name, setUp) => {
  beforeEach(() => setUp());

  it("finds the next job by walking the claim index in the claim's order, never sorting the ready jobs", () => {
    const lines = plan(claimSql(REFERENCE_CLAIM_RULES).lookUp);
    expect(lines).toEqual([`SCAN agent_jobs USING INDEX ${CLAIM_INDEX}`]);
    expect(lines.join('\n')).not.toMatch(/TEMP B-TREE/);
  });

  it('reads only expired leases from the lease index, never every running job', () => {
    const lines = plan(EXPIRED_LEASES_SQL);
    expect(lines[0]).toBe(`SEARCH agent_jobs USING INDEX ${LEASE_INDEX} (lease_until<?)`);
    // The few expired leases are put in id order; nothing else is read.
    expect(lines.slice(1)).toEqual(['USE TEMP B-TREE FOR ORDER BY']);
  });

  it("takes the job it found by its id, and the coordinator's claim reads the compensating jobs' index", () => {
    expect(plan(claimSql(REFERENCE_CLAIM_RULES).take)).toEqual(['SEARCH agent_jobs USING INTEGER PRIMARY KEY (rowid=?)']);
    // The partial index holds compensating jobs only: walking it in id order reads nothing else.
    const compensation = plan(CLAIM_COMPENSATION_SQL);
    expect(compensation.filter((line) => line.startsWith('SCAN') || line.startsWith('SEARCH'))).toEqual([
      'SEARCH agent_jobs USING INTEGER PRIMARY KEY (rowid=?)',
      'SCAN agent_jobs USING INDEX idx_agent_jobs_compensating',
    ]);
  });
});

describe('a claim that also takes from other states (a variant)', () => {
  it('names no index, so its look-up reads the table as before; and still claims', () => {
    const rules = { ...REFERENCE_CLAIM_RULES, alsoFrom: [{ status: 'review' as const, ready: '1', params: () => ({}), record: () => undefined }] };
    expect(claimSql(rules).lookUp).not.toMatch(/INDEXED BY/);
    expect(claimSql(REFERENCE_CLAIM_RULES).lookUp).toMatch(new RegExp(`INDEXED BY ${CLAIM_INDEX}`));
    queue.enqueue({ key: 'only', action: 'noop', payload: '{}' });
    expect(timerClaim(queue.db, { workerId: 'w1', now: Date.UTC(2026, 7, 25, 10), leaseMs: 1000, skewMarginMs: 0 })?.idempotency_key).toBe('only');
  });
});
