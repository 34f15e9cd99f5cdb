import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { QUEUE_IMPLS } from '../../src/adapters/registry.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { SelftestRow } from '../../src/selftest/selftest.js';
import { PG_AVAILABLE } from '../helpers/postgres.js';
import { tempRunDir } from '../helpers/run-dir.js';

// The fast subset of the shipped scenarios that, between them, reach every
// mistake the variants make; the full self-test (`queue-drill selftest`) runs
// them all plus a bounded explore.
const FAST = ['crash-after-claim', 'crash-after-write', 'zombie-complete', 'response-lost-to-review', 'review-stays-put', 'concurrent-enqueue', 'compensation-failed'];

describe('queue-drill selftest (fast subset)', () => {
  it('catches every broken variant and never flags the reference queue, on SQLite or on PostgreSQL', { timeout: 600_000 }, async () => {
    const run = tempRunDir('selftest');
    try {
      const result = await execa(process.execPath, [CLI_PATH, 'selftest', '--only', FAST.join(','), '--explore-runs', '0', '--out', run.dir, '--json'], {
        reject: false,
        env: { CI: 'true' },
      });
      const rows = JSON.parse(result.stdout) as SelftestRow[];
      expect(rows.map((r) => r.queue)).toEqual(QUEUE_IMPLS.map((q) => q.name));
      for (const row of rows.filter((r) => !r.broken)) {
        expect(row.flagged, `${row.queue}, a sound queue, is never flagged`).toEqual([]);
        if (PG_AVAILABLE || row.queue !== 'postgres') expect(row.skipped, `${row.queue} ran`).toBeNull();
      }
      expect(rows.filter((r) => !r.broken).map((r) => r.queue)).toEqual(['reference', 'postgres']);
      for (const row of rows.filter((r) => r.broken)) {
        expect(row.caughtBy, `${row.queue} is caught`).not.toBeNull();
        expect(row.caughtBy!.faults, `${row.queue}: a scenario of at most 3 faults catches it`).toBeLessThanOrEqual(3);
        expect(row.caughtBy!.replay).toContain(`--queue ${row.queue}`);
      }
      expect(result.exitCode).toBe(0);
      console.log(rows.map((r) => `${r.queue}: ${r.caughtBy ? `${r.caughtBy.invariant} @ ${r.caughtBy.scenario}` : 'clean'} (${(r.durationMs / 1000).toFixed(1)}s)`).join('\n'));
    } finally {
      run.remove();
    }
  });
});
