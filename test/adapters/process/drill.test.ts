import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { checkReport } from '../../../src/report/schema.js';
import { tempRunDir } from '../../helpers/run-dir.js';
import { PYTHON_EXAMPLE } from './python.js';

/*
 * The Python example under the shipped drill, through the real CLI (run
 * `npm run build` first: the drill's processes are dist/cli/main.js): a crash
 * after the claim, a zombie's late complete refused, racing producers on one
 * key, and a plan with the coordinator and a person's approval. Every drill
 * process starts a Python child of its own.
 *
 * The scenarios are the shipped ones, read from scenarios.yaml, with one
 * setting changed: no_progress_ms from 4 s to 10 s. Every drill process here
 * is a Node process and a Python child, and on this two-core machine under the
 * other drills' load (load average 15 and more) starting them alone outlasted
 * 4 s often enough that the watchdog ended a drill before its producer had
 * enqueued anything (report: "jobs: N missing", every process "did not say
 * hello"), while the same scenarios passed whenever they got going. The full
 * drill with the shipped settings is run and reported by hand (docs/protocol.md).
 */

const SCENARIOS = ['crash-after-claim', 'zombie-complete', 'concurrent-enqueue', 'approval-granted'];

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

describe('the shipped drill on --queue process:python3 examples/python-queue/queue_drill_queue.py', () => {
  it('passes crash-after-claim, zombie-complete, concurrent-enqueue and approval-granted', { timeout: 400_000 }, async () => {
    const out = tempRunDir('process-drill');
    cleanup.push(out.remove);
    const queue = `process:${PYTHON_EXAMPLE}`;
    const shipped = readFileSync('scenarios.yaml', 'utf8');
    const scenarios = join(out.dir, 'scenarios.yaml');
    writeFileSync(scenarios, shipped.replace(/^( {2}no_progress_ms:) 4000$/m, '$1 10000'));
    expect(readFileSync(scenarios, 'utf8')).toMatch(/^ {2}no_progress_ms: 10000$/m);
    const result = await execa(
      process.execPath,
      [CLI_PATH, 'run', scenarios, '--only', SCENARIOS.join(','), '--queue', queue, '--parallel', '1', '--out', out.dir],
      { reject: false, env: { CI: 'true' } },
    );
    const checked = checkReport(JSON.parse(readFileSync(join(out.dir, 'latest', 'report.json'), 'utf8')));
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const verdicts = Object.fromEntries(checked.report.scenarios.map((s) => [s.name, s.verdict]));
    expect(verdicts, `${result.stdout}\n${result.stderr}`).toEqual(Object.fromEntries(SCENARIOS.map((name) => [name, 'pass'])));
    expect(result.exitCode).toBe(0);
    for (const scenario of checked.report.scenarios) {
      expect(scenario.queue).toBe(queue);
      expect(scenario.queueVersion).toMatch(/^python-sqlite-queue 1\.0\.0 \(process protocol 2\)$/);
      // Protocol 2: the child itself was asked whether it can run the drill, and its mapping is the report's.
      expect(scenario.queueSettings).toMatchObject({ protocol: 2, store: 'SQLite, WAL, one file per drill' });
      // Built right, it gives every kind of evidence: nothing is left not judged.
      expect(scenario.invariants.filter((i) => i.status === 'not_judged')).toEqual([]);
      // The drill's worker renews for the child and tells the harness each lease it grants: every takeover (the
      // coordinator's of the zombie's job) is judged against the lease's true end, none left for want of a grant heard.
      expect(scenario.invariants.find((i) => i.id === 'lease-respected')?.note ?? '').not.toMatch(/no grant of the lease heard/);
    }
  });
});
