import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { childrenMentioning, descendantsOf, describeProcess, isRunning, isStopped, processesMentioning } from '../helpers/processes.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A harness SIGKILLed mid-drill runs no handler: no cleanup, no exit hook.
 * What it started must still end, within two seconds, on its own: the world,
 * the coordinator, the workers (a worker frozen by a pause fault included),
 * whatever they started, and the reaper that ends them. Checked against the
 * process table for `run`, `explore` and `compare`.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
const PYTHON = 'python3';
const PYTHON_QUEUE = 'examples/python-queue/queue_drill_queue.py';

interface Case {
  command: string;
  args: (out: string) => string[];
  /** What must be true of the run's processes before the kill: the drill is well under way. */
  underWay: (pids: number[]) => boolean;
  what: string;
  /** A process that must be among those killed (a grandchild of the harness), by its command line. */
  grandchild?: string;
}

const CASES: Case[] = [
  {
    command: 'run',
    args: (out) => ['run', SMALL, '--only', 'long-pause', '--out', out],
    // The worker the pause fault froze: SIGSTOPped, it could not act on anything itself.
    underWay: (pids) => pids.some(isStopped),
    what: 'a worker frozen by the pause fault',
  },
  {
    command: 'run',
    args: (out) => ['run', SMALL, '--only', 'long-pause', '--queue', `process:${PYTHON} -S ${PYTHON_QUEUE}`, '--out', out],
    // A queue in a child process: each drill process starts the Python queue as a child of its own.
    underWay: (pids) => pids.some(isStopped),
    what: 'a worker frozen by the pause fault, its Python queue under it',
    grandchild: PYTHON_QUEUE,
  },
  {
    command: 'explore',
    args: (out) => ['explore', '--runs', '20', '--seed', '3', '--out', out],
    underWay: (pids) => pids.length >= 4,
    what: "a lane's world, coordinator and workers",
  },
  {
    command: 'compare',
    args: (out) => ['compare', SMALL, '--only', 'long-pause', '--queues', 'sqlite,postgres', '--out', out],
    // The kill lands in the first column, mid-pause; the second column never starts.
    underWay: (pids) => pids.some(isStopped),
    what: 'a worker frozen by the pause fault',
  },
];

describe('a harness killed with SIGKILL', () => {
  it.each(CASES.map((c) => [c.command, c.what, c] as const))(
    'leaves no process of its %s (killed with %s) behind 2 s later',
    { timeout: 60_000 },
    async (_name, _what, c) => {
      const run = tempRunDir(`killed-${c.command}`);
      try {
        const harness = execa(process.execPath, [CLI_PATH, ...c.args(run.dir)], { reject: false });
        await waitFor(() => c.underWay(processesMentioning(run.dir).filter((pid) => pid !== harness.pid)), {
          timeoutMs: 30_000,
          intervalMs: 5,
          what: `${c.what} in ${run.dir}`,
        });
        const reapers = childrenMentioning(harness.pid!, 'reaper-process.js');
        expect(reapers, 'the harness runs one reaper').toHaveLength(1);
        // Everything under the harness, however deep (a queue's own child processes included), and the reaper.
        const before = descendantsOf(harness.pid!);
        if (c.grandchild) expect(before.map(describeProcess).join('\n')).toContain(c.grandchild);
        harness.kill('SIGKILL');
        await harness;
        const killedAt = Date.now();
        const left = () => [...new Set([...before, ...processesMentioning(run.dir)])].filter(isRunning);
        await waitFor(() => left().length === 0, {
          timeoutMs: 2_000,
          intervalMs: 10,
          what: `every process of the ${c.command} (${before.length} before the kill) and the reaper to be gone`,
        }).catch((error: unknown) => {
          throw new Error(`${String(error)}; still running:\n${left().map(describeProcess).join('\n')}`);
        });
        console.log(`${c.command}: ${before.length} processes of the run, none left ${Date.now() - killedAt} ms after the harness's SIGKILL`);
      } finally {
        run.remove();
      }
    },
  );
});
