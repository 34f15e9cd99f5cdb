import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { checkReport } from '../../../src/report/schema.js';
import { pgBossSchemasLeft } from '../../adapters/pg-boss/schemas.js';
import { skipWithoutPg } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * pg-boss drilled through the command line: real child processes, pg-boss's
 * own work() loop and maintenance, on scenarios whose leases pg-boss 10 can
 * honour (test/fixtures/scenarios/pg-boss.yaml). What is asserted is what the
 * drills showed:
 *   - crash-after-claim passes: maintenance fails the dead worker's job once
 *     its expireIn has passed, and it runs again after the retry delay;
 *   - concurrent-enqueue passes: the job id derived from the key is pg-boss's
 *     only dedupe (ON CONFLICT DO NOTHING), and it holds;
 *   - zombie-late-complete fails: the blocked worker goes on long after its
 *     lease, and a stale write of it lands on the job another worker holds:
 *     pg-boss's own fail (work() gave up on the handler at expireIn) moves it
 *     back to retry (single-holder), or its late complete finishes it
 *     (done-is-verified): pg-boss's complete and fail match any job by id.
 *     That is pg-boss 10's behaviour, which the drill is there to show.
 */

const FILE = 'test/fixtures/scenarios/pg-boss.yaml';
const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true' } });

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe.skipIf(skipWithoutPg('the pg-boss drills through the CLI (test/selftest/queues/pg-boss-drill.test.ts)'))(
  'pg-boss: drilled from the command line',
  () => {
    it("takes a crashed worker's job back, dedupes racing producers, and lets a zombie complete a job it no longer holds", {
      timeout: 180_000,
    }, async () => {
      const out = tempRunDir('pg-boss-drill');
      cleanup.push(out.remove);
      const before = await pgBossSchemasLeft(/^qdpb_/);
      const result = await cli([
        'run',
        FILE,
        '--only',
        'crash-after-claim,concurrent-enqueue,zombie-late-complete',
        '--parallel',
        '1',
        '--out',
        out.dir,
      ]);
      // A failed scenario: exit 1, with the report written.
      expect(result.exitCode, result.stderr).toBe(1);
      const checked = checkReport(JSON.parse(readFileSync(join(out.dir, 'latest', 'report.json'), 'utf8')));
      if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
      const byName = new Map(checked.report.scenarios.map((s) => [s.name, s]));
      const verdicts = Object.fromEntries([...byName].map(([name, s]) => [name, s.verdict]));
      expect(verdicts, result.stdout).toEqual({ 'crash-after-claim': 'pass', 'concurrent-enqueue': 'pass', 'zombie-late-complete': 'fail' });

      const crash = byName.get('crash-after-claim')!;
      expect(crash.queueVersion).toBe('pg-boss 10.4.2');
      expect(crash.queueSettings).toMatchObject({ expireInSeconds: 4, retryDelay: 1, retryBackoff: false });
      const notJudged = crash.invariants.filter((i) => i.status === 'not_judged').map((i) => i.id);
      // pg-boss's own loop holds its jobs: no lease it grants reaches the drill's worker to tell the harness.
      expect(notJudged.sort()).toEqual(['lease-released', 'lease-respected']);
      // pg-boss keeps no epochs or refusals: single-holder is judged at the world and by who wrote each change of its history.
      expect(crash.invariants.find((i) => i.id === 'single-holder')).toMatchObject({
        status: 'held',
        note: expect.stringMatching(/^judged at the world and by who wrote each change in the queue's history only/),
      });

      const zombie = byName.get('zombie-late-complete')!;
      // Two stale writes race when the blocked worker goes on: pg-boss's own fail (its work() gave up on the handler at
      // expireIn) and the handler's late complete. Whichever lands on the new holder's job is applied; either breaks.
      const broken = zombie.invariants.filter((i) => i.status === 'broken');
      expect(broken.length, JSON.stringify(zombie.invariants)).toBeGreaterThan(0);
      const patterns: Record<string, RegExp> = {
        // Epoch and attempt 2, or 3 when pg-boss's own stale fail sent the new holder's attempt back to retry first.
        'done-is-verified': /running→done by worker w\d, epoch ([23]), attempt \1, .* was not written by the holder of the current lease/,
        'single-holder': /running→(retry|done) by worker (w\d), .* ended the lease (?!\2)w\d held .*another holder's write, and the queue applied it/,
      };
      for (const verdict of broken) expect(verdict.evidence.join('\n')).toMatch(patterns[verdict.id] ?? /^never$/);
      expect(zombie.jobs).toEqual([expect.objectContaining({ actual: { status: 'done', reason: null }, matches: true })]);
      // 2 attempts when the late complete landed; 3 when pg-boss's own stale fail sent the new holder's attempt back to retry.
      expect(zombie.jobs[0]!.attempts).toBeGreaterThanOrEqual(2);
      expect(zombie.duplicatedEffects).toEqual([]);

      expect(await pgBossSchemasLeft(/^qdpb_/)).toEqual(before);
    });
  },
);
