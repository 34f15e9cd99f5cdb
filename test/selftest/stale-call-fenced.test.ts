import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport } from '../../src/report/schema.js';
import { readCalls } from '../../src/world/ledger.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The race explore found on the reference (seed 20261203): a holder whose
 * event loop is blocked just before its call, past its lease, wakes after the
 * next holder's claim but before that holder calls, and its call goes out
 * before its heartbeat learns the lease is lost. A world that fenced only on
 * the epochs it had seen in calls applied it (single-holder broke: two holders
 * acted); the fenced world now learns the new lease when its delivery begins,
 * and refuses the call. Without that (src/world/ledger.ts, recordDelivery) this
 * drill fails every time.
 */

const FILE = 'test/fixtures/scenarios/stale-call-before-next-call.yaml';

describe('a stale holder whose call arrives before the next holder has called', () => {
  it('is refused by the fenced world, and the reference passes', { timeout: 60_000 }, async () => {
    const run = tempRunDir('stale-call');
    try {
      const drill = await execa(process.execPath, [CLI_PATH, 'run', FILE, '--parallel', '1', '--out', run.dir], { reject: false });
      const [stamp] = readdirSync(run.dir).filter((d) => d !== 'latest');
      const report = JSON.parse(readFileSync(join(run.dir, stamp!, 'report.json'), 'utf8')) as DrillReport;
      const scenario = report.scenarios[0]!;
      expect(scenario.verdict, drill.stdout).toBe('pass');
      expect(drill.exitCode, drill.stdout).toBe(0);
      // The window was reached: the older holder's call came under epoch 1 after the epoch-2 delivery began, and was refused.
      const calls = readCalls(join(scenario.runDir, 'ledger.db'));
      const stale = calls.filter((call) => call.fence === 1);
      expect(stale.length, JSON.stringify(calls)).toBeGreaterThan(0);
      expect(stale.map((call) => [call.outcome, call.status])).toEqual(stale.map(() => ['failed', 409]));
      expect(calls.filter((call) => call.outcome === 'applied').map((call) => call.fence)).toEqual([2]);
    } finally {
      run.remove();
    }
  });
});
