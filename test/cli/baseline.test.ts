import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * --baseline, from real runs: a first run of crash-after-claim on the
 * reference is the baseline; each later run differs in one way, and the gate
 * names that way: the queue now fails it, its fault no longer fires, or its
 * recovery takes ten times as long (its lease raised tenfold, 300 ms to 3 s,
 * at the same time scale, so the recovery regresses past the default
 * tolerance however slow a loaded machine made the baseline's, short of 2 s).
 * The same run again is no regression; so is a run stretched by a larger
 * --time-scale alone (each recovery is compared at its own scale).
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
const run = tempRunDir('baseline');
const baseline = join(run.dir, 'baseline');

function drill(out: string, ...args: string[]) {
  return execa(process.execPath, [CLI_PATH, 'run', ...args, '--only', 'crash-after-claim', '--seed', '7', '--out', join(run.dir, out)], {
    reject: false,
    env: { CI: 'true' },
  });
}

function reportIn(out: string): DrillReport {
  return JSON.parse(readFileSync(join(run.dir, out, 'latest', 'report.json'), 'utf8')) as DrillReport;
}

describe('run --baseline', () => {
  beforeAll(async () => {
    const first = await drill('baseline', SMALL);
    expect(first.exitCode, first.stderr).toBe(0);
  }, 60_000);
  afterAll(() => run.remove());

  it('passes the same run again, saying there is no regression', { timeout: 60_000 }, async () => {
    const again = await drill('again', SMALL, '--baseline', baseline);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(reportIn('again').baseline).toMatchObject({ regressions: [], improvements: [], added: [], missing: [] });
    expect(again.stderr).toContain(`no regression against the baseline ${join(baseline, 'latest', 'report.json')}`);
  });

  it('passes the same run stretched by a larger time scale: each recovery is taken at its own scale', { timeout: 60_000 }, async () => {
    const stretched = await drill('stretched', SMALL, '--time-scale', '4', '--baseline', baseline);
    expect(stretched.exitCode, stretched.stderr).toBe(0);
    expect(reportIn('stretched').baseline!.regressions).toEqual([]);
  });

  it('fails a scenario that passed there and fails now', { timeout: 60_000 }, async () => {
    const now = await drill('fails', SMALL, '--queue', 'sketch-literal', '--baseline', baseline);
    expect(now.exitCode).toBe(1);
    expect(reportIn('fails').baseline!.regressions).toEqual([
      { scenario: 'crash-after-claim', kind: 'now-fails', detail: expect.stringMatching(/^passed in the baseline, fail now \(broke .*no-lost-job/) },
    ]);
    expect(now.stderr).toMatch(/1 regression against the baseline .*\n {2}REGRESSION crash-after-claim: passed in the baseline, fail now/);
  });

  it('fails a scenario whose fault fired there and never fires now', { timeout: 60_000 }, async () => {
    const file = join(run.dir, 'unfired.yaml');
    // The same scenario, its crash now limited to an attempt no job reaches: a change that stopped the fault from firing.
    writeFileSync(
      file,
      readFileSync(SMALL, 'utf8').replace(
        'faults: [{ at: after_claim, action: crash, first: 1 }]',
        'faults: [{ at: after_claim, action: crash, first: 1, where: { attempt: 9 } }]',
      ),
    );
    const now = await drill('vacuous', file, '--baseline', baseline);
    expect(now.exitCode).toBe(1);
    expect(reportIn('vacuous').scenarios[0]!.verdict).toBe('vacuous');
    expect(reportIn('vacuous').baseline!.regressions).toEqual([
      { scenario: 'crash-after-claim', kind: 'now-vacuous', detail: 'fault(s) f1 fired in the baseline, never now' },
    ]);
  });

  it('fails a recovery grown past the tolerance, and says by how much', { timeout: 120_000 }, async () => {
    // The same scenario with a lease ten times as long (and a watchdog and deadline to match): the queue takes a dead worker's job back later.
    const file = join(run.dir, 'longer-lease.yaml');
    writeFileSync(
      file,
      readFileSync(SMALL, 'utf8')
        .replace('lease_ms: 300', 'lease_ms: 3000')
        .replace('no_progress_ms: 2500', 'no_progress_ms: 25000')
        .replace('timeout_ms: 15000', 'timeout_ms: 60000'),
    );
    const now = await drill('slower', file, '--baseline', baseline);
    expect(now.exitCode, now.stderr).toBe(1);
    const report = reportIn('slower');
    expect(report.scenarios[0]!.verdict).toBe('pass');
    expect(report.baseline!.regressions).toEqual([
      {
        scenario: 'crash-after-claim',
        kind: 'slower-recovery',
        // At ×1 on both sides, or at the scales auto chose, each said.
        detail: expect.stringMatching(
          /^recovery \d+ ms(?: at ×[\d.]+)?, was \d+ ms(?: at ×[\d.]+: \d+ ms against \d+ ms at ×1)? \(tolerance: ×1.5 and \+500 ms\)$/,
        ),
      },
    ]);
    // A wide enough tolerance lets the same run pass.
    const lenient = await drill('lenient', file, '--baseline', baseline, '--recovery-ratio', '10', '--recovery-slack-ms', '60000');
    expect(lenient.exitCode, lenient.stderr).toBe(0);
  });

  it('refuses a baseline that is not a report, as bad input naming it', async () => {
    const result = await execa(process.execPath, [CLI_PATH, 'run', SMALL, '--baseline', 'README.md', '--out', join(run.dir, 'never')], {
      reject: false,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--baseline README\.md: cannot read a report there \(not JSON\)/);
  });
});
