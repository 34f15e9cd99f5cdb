import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { requestTimeoutFor } from '../../../src/adapters/process/process-connection.js';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import type { DrillReport } from '../../../src/report/schema.js';
import { processesMentioning } from '../../helpers/processes.js';
import { tempRunDir } from '../../helpers/run-dir.js';
import { brokenFixture } from './python.js';

/*
 * A queue in a child process that turns hostile: it stops answering, floods
 * its stdout with a line that never ends, or writes lines no protocol has.
 * The drill must end on its own, with an error for that queue naming the
 * child and what it did, and leave no process behind: never hang, never crash.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
/** Its lease (lease_ms). */
const SMALL_LEASE_MS = 300;

describe('a queue child that dies on enqueue', () => {
  it('fails the drill naming what its producers were told, and the exit of each process that died', { timeout: 120_000 }, async () => {
    const run = tempRunDir('hostile-exits-on-enqueue');
    try {
      const queue = `process:${brokenFixture('exits-on-enqueue')}`;
      const result = await execa(process.execPath, [CLI_PATH, 'run', SMALL, '--only', 'crash-after-claim', '--queue', queue, '--out', run.dir], {
        reject: false,
      });
      expect(result.exitCode, result.stderr).toBe(1);
      const [scenario] = (JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport).scenarios;
      const noLostJob = scenario!.invariants.find((v) => v.id === 'no-lost-job');
      expect(noLostJob?.evidence.join('\n')).toMatch(/never in the store: every enqueue of it failed \(.*exits-on-enqueue\.py exited \(code 7/);
      expect(noLostJob?.evidence.join('\n')).not.toMatch(/\(lost\)/);
      // A drill process that exited with an error says why on the timeline (its stderr's last line).
      const exits = scenario!.timeline.filter((event) => event.kind === 'exit').map((event) => event.detail);
      expect(exits.join('\n')).toMatch(/exit code [1-9]\d*: queue-drill: .*exits-on-enqueue\.py/);
      expect(processesMentioning('exits-on-enqueue.py'), 'no child left').toEqual([]);
    } finally {
      run.remove();
    }
  });
});

describe('a hostile queue child', () => {
  it.each([
    { fixture: 'never-answers-snapshot', says: /gave no answer within (\d+) ms \[no_answer\]/ },
    { fixture: 'floods-stdout', says: /was stopped: it wrote more than 16 MiB on stdout without a newline .*\[flooded\]/ },
    { fixture: 'garbage-lines', says: /was stopped: it broke the protocol more than 100 times \(the last: .*\) \[protocol_broken\]/ },
  ])('$fixture: the drill ends with an error naming the child and what it did', { timeout: 300_000 }, async ({ fixture, says }) => {
    const run = tempRunDir(`hostile-${fixture}`);
    try {
      const queue = `process:${brokenFixture(fixture)}`;
      const result = await execa(process.execPath, [CLI_PATH, 'run', SMALL, '--only', 'crash-after-claim', '--queue', queue, '--out', run.dir], {
        reject: false,
        // A bound for a hang, not a speed: on a busy machine auto stretches the lease (up to ×8) and the wait for the silent
        // child's answer with it (25 leases: 60 s at ×8), on top of processes slow to start.
        timeout: 240_000,
      });
      expect(result.timedOut, 'the drill ended on its own').toBe(false);
      expect(result.exitCode, result.stderr).toBe(3);
      const [scenario] = (JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport).scenarios;
      expect(scenario!.verdict).toBe('error');
      expect(scenario!.error).toMatch(says);
      const waited = says.exec(scenario!.error ?? '')?.[1];
      // The wait follows the lease, which --time-scale (auto by default) stretched on a busy machine.
      if (waited !== undefined) expect(Number(waited)).toBe(requestTimeoutFor(Math.round(SMALL_LEASE_MS * scenario!.timeScale)));
      expect(scenario!.error).toContain(`test/fixtures/protocol/${fixture}.py`);
      expect(result.stderr, 'no stack trace').not.toMatch(/\n\s+at |node:internal/);
      expect(processesMentioning(`${fixture}.py`), 'no child left').toEqual([]);
    } finally {
      run.remove();
    }
  });
});
