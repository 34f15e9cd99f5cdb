import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { runProtocolCheck } from '../../../src/contract/protocol/run-protocol-check.js';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { checkReport } from '../../../src/report/schema.js';
import { tempRunDir } from '../../helpers/run-dir.js';
import { PYTHON } from './python.js';

/*
 * examples/minimal-queue/: the smallest child a queue author can read in
 * five minutes. It speaks protocol 2 with no optional part (takeover is the
 * queue's own, at each claim; the saga's checkpoints stay beside the run), so
 * protocol-check skips exactly the optional parts' steps and passes the rest;
 * it stays small enough to read (150 lines); and the shipped drill passes on
 * it through the built CLI (run `npm run build` first).
 */

const MINIMAL_PATH = 'examples/minimal-queue/minimal_queue.py';
const MINIMAL = `${PYTHON} -S ${MINIMAL_PATH}`;
const MAX_LINES = 150;

/** The steps of the optional parts it does not offer: skipped, never failed. */
const OPTIONAL_STEPS = ['takeover', 'compensation', 'requeue-from-review', 'saga-log'];

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

describe('the minimal child (examples/minimal-queue/minimal_queue.py)', () => {
  it('passes every protocol-check step but the optional parts it does not offer, which are skipped', { timeout: 120_000 }, async () => {
    const results = await runProtocolCheck(MINIMAL);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(results.filter((r) => r.status === 'skip').map((r) => r.name)).toEqual(OPTIONAL_STEPS);
    expect(results.filter((r) => r.status === 'pass').map((r) => r.name)).toEqual(
      expect.arrayContaining(['hello', 'teardown', 'fit', 'settle', 'stale-write-refused', 'work-loop', 'exit-on-stdin-close']),
    );
  });

  it(`stays at ${MAX_LINES} lines or fewer, comments included`, () => {
    const text = readFileSync(MINIMAL_PATH, 'utf8');
    // Counted as `wc -l` does, plus a last line with no newline.
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    expect(lines).toBeGreaterThan(0);
    expect(lines).toBeLessThanOrEqual(MAX_LINES);
  });

  it('passes crash-after-claim and max-retries of the shipped drill', { timeout: 300_000 }, async () => {
    const out = tempRunDir('minimal-child-drill');
    cleanup.push(out.remove);
    const queue = `process:${MINIMAL}`;
    const scenarios = ['crash-after-claim', 'max-retries'];
    // As in drill.test.ts: the shipped scenarios with the no-progress watchdog at 10 s, not 4 s, so that a loaded machine's
    // slow process starts do not end a drill before its producer has enqueued anything.
    const file = join(out.dir, 'scenarios.yaml');
    writeFileSync(file, readFileSync('scenarios.yaml', 'utf8').replace(/^( {2}no_progress_ms:) 4000$/m, '$1 10000'));
    expect(readFileSync(file, 'utf8')).toMatch(/^ {2}no_progress_ms: 10000$/m);
    const result = await execa(
      process.execPath,
      [CLI_PATH, 'run', file, '--only', scenarios.join(','), '--queue', queue, '--parallel', '1', '--out', out.dir],
      { reject: false, env: { CI: 'true' } },
    );
    const checked = checkReport(JSON.parse(readFileSync(join(out.dir, 'latest', 'report.json'), 'utf8')));
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const verdicts = Object.fromEntries(checked.report.scenarios.map((s) => [s.name, s.verdict]));
    expect(verdicts, `${result.stdout}\n${result.stderr}`).toEqual(Object.fromEntries(scenarios.map((name) => [name, 'pass'])));
    expect(result.exitCode).toBe(0);
    for (const scenario of checked.report.scenarios) {
      expect(scenario.queueVersion).toBe('minimal-sqlite-queue 1.0.0 (process protocol 2)');
      // Protocol 2: the child itself was asked whether it can run the drill, and its mapping is in the report.
      expect(scenario.queueSettings).toMatchObject({ protocol: 2, store: 'one SQLite file', saga_store: 'beside-the-run' });
      // It states every evidence kind true, so every invariant is judged: a claim it could not back would show here.
      expect(scenario.invariants.filter((i) => i.status === 'not_judged')).toEqual([]);
    }
  });
});
