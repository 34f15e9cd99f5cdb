import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { checkReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { firstScenario, scenarioPage } from './page-examples.js';

/*
 * The done-when of docs/scenarios.md: a first scenario written from the page
 * alone runs. So the page's own example, copied as a reader would, is saved
 * and run the way the page says (`queue-drill run my-drill.yaml`, from the
 * reader's own directory, on the default queue), and must pass.
 */

// The CLI a person runs (main.js, as `npx queue-drill` does), not the children's bundle.
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

describe("docs/scenarios.md's first scenario", () => {
  let remove: (() => void) | undefined;
  afterEach(() => {
    remove?.();
    remove = undefined;
  });

  it('runs as the page says, on the default queue (the reference design on SQLite), and passes', async () => {
    const run = tempRunDir('first-scenario');
    remove = run.remove;
    writeFileSync(join(run.dir, 'my-drill.yaml'), firstScenario(scenarioPage()));
    const result = await execa(process.execPath, [MAIN, 'run', 'my-drill.yaml'], { cwd: run.dir, reject: false, env: { CI: 'true' } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/PASS\s+my-first-drill/);
    expect(result.stderr).toMatch(/1\/1 passed/);
    // The report is where the page says it is: drill-runs/latest/ under the directory it was run from.
    const checked = checkReport(JSON.parse(readFileSync(join(run.dir, 'drill-runs', 'latest', 'report.json'), 'utf8')));
    if (!checked.ok) throw new Error(`report.json does not validate: ${JSON.stringify(checked.issues)}`);
    const [scenario] = checked.report.scenarios;
    expect(scenario?.queue).toBe('reference');
    // The crash the example arms fired, so the pass is the recovery's, not a drill where nothing happened.
    expect(scenario?.faults[0]?.fired).toBe(1);
    expect(checked.report.summary).toMatchObject({ scenarios: 1, passed: 1, failed: 0 });
  });
});
