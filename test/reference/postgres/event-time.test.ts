import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { quoteIdent } from '../../../src/adapters/pg/identifier.js';
import type { Queryable } from '../../../src/adapters/pg/queryable.js';
import { PgLeaseStore } from '../../../src/reference/postgres/pg-lease-store.js';
import { retry } from '../../../src/reference/postgres/sql/retry.js';
import { freshSchema, PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { behaviourOptions } from '../lease-store-behaviour.js';

/*
 * A lease holder's write and its history row are two statements; a client
 * starved between them (a loaded machine) must not move the row's time.
 * However short the gap between them, a row stamped at its own insert is
 * later than the UPDATE's clock, so the check needs no long stall to fail. The
 * retry's delay runs from the UPDATE's clock, so the row says when the change
 * was made: the failure's time plus its delay is exactly when it falls due.
 * Stamped at its own insert, the history showed the next claim coming before
 * the delay was up, and the judge blamed the sound queue (retry-storm, under load).
 */

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe.skipIf(skipWithoutPg('the history row times on PostgreSQL (test/reference/postgres/event-time.test.ts)'))(
  'a history row on PostgreSQL',
  () => {
    it("takes its change's time, however long the client took to write it: a retry's time plus its delay is when it falls due", async () => {
      const fresh = await freshSchema('event-time');
      const store = new PgLeaseStore({ url: PG_URL, schema: fresh.schema }, behaviourOptions());
      const client = new pg.Client({ connectionString: PG_URL });
      cleanup.push(
        fresh.drop,
        () => store.close(),
        () => client.end(),
      );
      await client.connect();
      await client.query(`SET search_path TO ${quoteIdent(fresh.schema)}`);
      const { jobId } = await store.enqueue({ key: 'k', action: 'charge', payloadJson: '{}', maxAttempts: 3 });
      const claimed = (await store.claim('w1'))!;
      // The client goes off to other work right after the write's UPDATE (a starved process does the same, for longer):
      // the server's clock when it comes back is later than the UPDATE's, and the history row is written after it.
      let back: string | undefined;
      const stalling: Queryable = {
        query: (async (text: string, values?: unknown[]) => {
          const result = await client.query(text, values);
          if (/^UPDATE agent_jobs/.test(text)) back = (await client.query<{ at: string }>('SELECT clock_timestamp()::text AS at')).rows[0]!.at;
          return result;
        }) as Queryable['query'],
      };
      await client.query('BEGIN');
      const written = await retry(stalling, { jobId, workerId: 'w1', fence: claimed.lease_fence }, { delayMs: () => 500, error: 'boom' });
      await client.query('COMMIT');
      expect(written.ok).toBe(true);
      const { rows } = await client.query<{ due: boolean; before_back: boolean }>(
        `SELECT e.at + make_interval(secs => e.delay_ms / 1000.0) = j.next_run_at AS due, e.at < $2::timestamptz AS before_back
           FROM agent_job_events e JOIN agent_jobs j ON j.id = e.job_id
          WHERE e.job_id = $1 AND e.to_status = 'retry'`,
        [jobId, back],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.due).toBe(true);
      // The stall happened between the two statements: the row's time is the UPDATE's, before the client came back.
      expect(rows[0]!.before_back).toBe(true);
    });
  },
);
