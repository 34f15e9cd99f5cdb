import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport } from '../../src/report/schema.js';
import { renderStepSummary } from '../../src/report/step-summary.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * `queue-drill run` in a GitHub Actions job: with GITHUB_STEP_SUMMARY naming a
 * file, a real drill (crash-after-claim on the queue sketch's queue as
 * written, which fails it) appends its summary after what earlier steps wrote
 * there: the verdict counts, the failing scenario with the invariants it
 * broke, the seed and the command that replays it.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
const run = tempRunDir('step-summary-cli');

describe('run with GITHUB_STEP_SUMMARY set', () => {
  afterAll(() => run.remove());

  it('appends its summary to the file, after what was there', { timeout: 90_000 }, async () => {
    const summaryFile = join(run.dir, 'step-summary.md');
    const before = '## Unit tests\n\n120 passed\n';
    writeFileSync(summaryFile, before);
    const drill = await execa(
      process.execPath,
      // A scale given, not measured: the replay printed is then the same on a busy machine as on a quiet one.
      [
        CLI_PATH,
        'run',
        SMALL,
        '--only',
        'crash-after-claim',
        '--queue',
        'sketch-literal',
        '--seed',
        '3',
        '--time-scale',
        '1',
        '--out',
        join(run.dir, 'runs'),
      ],
      { reject: false, env: { CI: 'true', GITHUB_STEP_SUMMARY: summaryFile } },
    );
    expect(drill.exitCode, drill.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(run.dir, 'runs', 'latest', 'report.json'), 'utf8')) as DrillReport;
    const text = readFileSync(summaryFile, 'utf8');
    expect(text.startsWith(`${before}\n### queue-drill: ❌ 0 of 1 scenario passed (exit code 1)\n`)).toBe(true);
    // What the drill found, as its report says it.
    expect(text).toContain('| 0 | 1 | 0 | 0 | 0 | 0 |');
    expect(text).toContain('Queue `sketch-literal` · seed `3`');
    // The scale 1 given stretches nothing: the summary says nothing of it.
    expect(report.timeScale).toBe(1);
    expect(report.calibration ?? null).toBeNull();
    expect(text).not.toContain('time scale');
    expect(text).toMatch(/^- ❌ `crash-after-claim` fail: broke `no-lost-job`, `lease-released`/m);
    expect(text).toContain(
      '```sh\nnpx queue-drill run test/fixtures/scenarios/drill-small.yaml --only crash-after-claim --seed 3 --queue sketch-literal --expect-broken ',
    );
    // Exactly the summary of the report the run wrote, naming its report.html.
    const html = join(run.dir, 'runs', readlinkSync(join(run.dir, 'runs', 'latest')), 'report.html');
    expect(text).toBe(`${before}\n${renderStepSummary(report, html)}\n`);
  });
});
