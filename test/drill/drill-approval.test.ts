import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { jobLife } from '../../src/report/job-life.js';
import type { DrillReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The drill's own approval of a step that waits for a person (`approve:
 * true`, the default): the report names it as the drill's, and the run it
 * resumes is not taken from the job's attempts. A charge job with two
 * attempts, approved by the drill, then refused once by the world (503): it
 * still has its retry and ends done. Were the approval's run taken from its
 * attempts, the 503 would be its last and the job would end in review.
 */

const SCENARIOS = `version: 1
scenarios:
  - name: approved-charge-retried
    description: The drill approves the charge; the world answers 503 to the first charge, and the job still has its retry.
    jobs: [{ plan: charge, max_attempts: 2, expect: done }]
    faults: [{ world: { step: charge }, action: fail, status: 503, times: 1 }]
`;

const temp = tempRunDir('drill-approval');
afterAll(() => temp.remove());

describe("the drill's own approval", () => {
  it("is shown as the drill's and leaves the job its attempts", { timeout: 60_000 }, async () => {
    const file = join(temp.dir, 'scenarios.yaml');
    writeFileSync(file, SCENARIOS);
    const out = join(temp.dir, 'runs');
    const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--out', out], { reject: false, env: { CI: 'true' } });
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as DrillReport;
    const scenario = report.scenarios[0]!;
    expect(scenario.verdict, result.stderr).toBe('pass');
    const job = scenario.jobs[0]!;
    // Attempt 1 prepared the charge and asked; 2 met the 503; 3 charged: one more than the job's own two.
    expect([job.actual.status, job.attempts, job.maxAttempts]).toEqual(['done', 3, 3]);
    expect(scenario.timeline.filter((e) => e.kind === 'approve').map((e) => e.detail)).toEqual([
      `job ${job.id} step charge approved by the drill (a recorded human action)`,
    ]);
    expect(jobLife(job)[0]).toMatch(/attempt 3 of 3; the drill approved step charge \(a recorded human action\)$/);
  });
});
