import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openRedis } from '../../src/adapters/bullmq/redis.js';
import { urlWordWithoutPassword } from '../../src/drill/replay-servers.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { freshSchema, PG_URL, skipWithoutPg } from '../helpers/postgres.js';
import { descendantsOf, describeProcess, isRunning, isStopped, processesMentioning } from '../helpers/processes.js';
import { keysMatching, REDIS_URL, skipWithoutRedis } from '../helpers/redis.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * What a SIGKILLed drill leaves on its server, and `queue-drill clean`: two
 * real drills on the same queue, one SIGKILLed (its whole process group; its
 * reaper ends the rest) while the other runs on. Their schema or key prefix
 * is found by its owner mark, read here with plain SQL and Redis commands.
 * The killed drill's is still there (nothing else removes it); clean removes
 * it and leaves the running drill's, which that drill's own teardown removes
 * once it is stopped. Every clean here is limited to these drills
 * (`--under`), or is a dry run: other drills on this machine are never
 * touched by these tests.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
// The paused worker keeps the drill running for its whole timeout (15 s × 4) unless stopped.
const SLOW = ['--only', 'long-pause', '--time-scale', '4'];

interface JsonLeftover {
  name: string;
  state: string;
  action: string;
  queue: string | null;
}

/** One queue's server as this test reads it, by the owner marks' run directories. */
interface Server {
  queue: 'postgres' | 'bullmq';
  skip: boolean;
  /** The names of what drills under `dir` made on the server (a mark naming a run directory under it). */
  madeUnder(dir: string): Promise<string[]>;
  exists(name: string): Promise<boolean>;
  /** The test's own cleanup, for what it made and a failure left. */
  remove(name: string): Promise<void>;
}

async function pgQuery<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const POSTGRES: Server = {
  queue: 'postgres',
  skip: skipWithoutPg('queue-drill clean after a SIGKILLed drill on postgres (test/cli/clean.test.ts)'),
  madeUnder: async (dir) =>
    (
      await pgQuery<{ name: string }>(
        `SELECT nspname AS name FROM pg_namespace WHERE position($1 IN coalesce(obj_description(oid, 'pg_namespace'), '')) > 0`,
        [`"runDir": "${dir}/`],
      )
    ).map((row) => row.name),
  exists: async (name) => (await pgQuery('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).length === 1,
  remove: async (name) => {
    await pgQuery(`DROP SCHEMA IF EXISTS "${name}" CASCADE`, []);
  },
};

const BULLMQ: Server = {
  queue: 'bullmq',
  skip: skipWithoutRedis('queue-drill clean after a SIGKILLed drill on bullmq (test/cli/clean.test.ts)'),
  madeUnder: async (dir) => {
    const client = openRedis(REDIS_URL);
    try {
      const found: string[] = [];
      for (const key of await keysMatching('qd-*:qd-owner')) {
        const runDir = (JSON.parse((await client.get(key)) ?? '{}') as { runDir?: string }).runDir ?? '';
        if (runDir.startsWith(`${dir}/`)) found.push(key.slice(0, key.indexOf(':')));
      }
      return found;
    } finally {
      client.disconnect();
    }
  },
  exists: async (prefix) => (await keysMatching(`${prefix}:*`)).length > 0,
  remove: async (prefix) => {
    const keys = await keysMatching(`${prefix}:*`);
    const client = openRedis(REDIS_URL);
    try {
      if (keys.length > 0) await client.del(...keys);
    } finally {
      client.disconnect();
    }
  },
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true' } });

/** A drill of `queue` into `out`, in a process group of its own (so the group can be killed, as a terminal's Ctrl-\ or a CI's cancel does). */
function startDrill(queue: string, out: string) {
  return execa(process.execPath, [CLI_PATH, 'run', SMALL, ...SLOW, '--queue', queue, '--out', out], {
    reject: false,
    detached: true,
    env: { CI: 'true' },
  });
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function killGroup(pid: number | undefined): void {
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

describe('queue-drill clean after a drill was SIGKILLed', () => {
  for (const server of [POSTGRES, BULLMQ]) {
    it.skipIf(server.skip)(`on ${server.queue} removes the killed drill’s queue and leaves a running drill’s`, { timeout: 150_000 }, async () => {
      const root = tempRunDir(`clean-${server.queue}`);
      cleanup.push(root.remove);
      const killedOut = join(root.dir, 'killed');
      const runningOut = join(root.dir, 'running');
      const killed = startDrill(server.queue, killedOut);
      const running = startDrill(server.queue, runningOut);
      const made: string[] = [];
      // Last: whatever a failure left, the test's own drills and what they made are gone after it.
      cleanup.push(async () => {
        killGroup(killed.pid);
        killGroup(running.pid);
        await Promise.all([killed, running]);
        for (const name of [...made, ...(await server.madeUnder(root.dir))]) await server.remove(name);
      });
      const [killedQueue, runningQueue] = await Promise.all(
        [killedOut, runningOut].map((out) =>
          waitFor(async () => (await server.madeUnder(out))[0], {
            timeoutMs: 60_000,
            intervalMs: 100,
            what: `the ${server.queue} queue of the drill in ${out}`,
          }),
        ),
      );
      made.push(killedQueue!, runningQueue!);
      // Killed mid-drill: a worker holds a job (frozen by the pause fault), so the queue holds more than what provision made.
      await waitFor(() => descendantsOf(killed.pid!).some(isStopped), {
        timeoutMs: 60_000,
        intervalMs: 20,
        what: 'the killed drill’s paused worker',
      });
      const before = descendantsOf(killed.pid!);

      killGroup(killed.pid);
      await killed;
      // The reaper ends what the harness started; a process still running could write into the queue after it is removed.
      const left = () => [...new Set([...before, ...processesMentioning(killedOut)])].filter(isRunning);
      await waitFor(() => left().length === 0, { timeoutMs: 10_000, intervalMs: 20, what: 'every process of the killed drill to end' }).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}; still running:\n${left().map(describeProcess).join('\n')}`);
        },
      );
      expect(await server.exists(killedQueue!), 'the killed drill left its queue behind').toBe(true);

      const dry = await cli(['clean', '--under', root.dir, '--dry-run']);
      expect(dry.exitCode, dry.stderr).toBe(0);
      console.log(`queue-drill clean --dry-run, a ${server.queue} drill SIGKILLed and one running:\n${dry.stdout}`);
      expect(dry.stdout).toMatch(new RegExp(`would remove +\\S+( \\S+)? ${killedQueue} \\(${server.queue}; .*drill pid \\d+ on this host is gone`));
      expect(dry.stdout).toMatch(new RegExp(`running +\\S+( \\S+)? ${runningQueue} \\(${server.queue}; .*is running`));
      expect(dry.stdout).toMatch(
        /clean \(drills under .*\): would remove 1; left 1 of drills still running, 0 kept, 0 unmarked \(a dry run: nothing removed\)/,
      );
      expect(await server.exists(killedQueue!), 'a dry run removes nothing').toBe(true);

      const swept = await cli(['clean', '--under', root.dir, '--json']);
      expect(swept.exitCode, swept.stderr).toBe(0);
      const leftovers = (JSON.parse(swept.stdout) as { leftovers: JsonLeftover[] }).leftovers;
      expect(leftovers).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: killedQueue, queue: server.queue, state: 'gone', action: 'removed' }),
          expect.objectContaining({ name: runningQueue, queue: server.queue, state: 'running', action: 'left' }),
        ]),
      );
      expect(leftovers).toHaveLength(2);
      expect(await server.exists(killedQueue!), 'clean removed the killed drill’s queue').toBe(false);
      expect(await server.exists(runningQueue!), 'clean left the running drill’s queue').toBe(true);
      expect(isRunning(running.pid!), 'the running drill still runs').toBe(true);

      // Stopped as a person stops it: its own teardown removes its queue.
      running.kill('SIGINT');
      await running;
      expect(await server.exists(runningQueue!), 'the running drill removed its own queue once stopped').toBe(false);
    });
  }
});

describe.skipIf(skipWithoutPg('queue-drill clean and kept or unmarked schemas (test/cli/clean.test.ts)'))(
  'queue-drill clean and what is not a dead drill’s',
  () => {
    it('leaves a schema --keep kept unless --include-kept, and an unmarked one always', { timeout: 120_000 }, async () => {
      const root = tempRunDir('clean-kept');
      cleanup.push(root.remove);
      const unmarked = await freshSchema('clean-unmarked');
      cleanup.push(unmarked.drop);
      const drill = await cli(['run', SMALL, '--only', 'crash-after-claim', '--queue', 'postgres', '--keep', '--pg-url', PG_URL, '--out', root.dir]);
      const kept = await POSTGRES.madeUnder(root.dir);
      cleanup.push(async () => {
        for (const name of kept) await POSTGRES.remove(name);
      });
      expect(drill.exitCode, drill.stderr).toBe(0);
      expect(kept).toHaveLength(1);
      // The server the command line named is in the replay, so the replay drills the same server.
      const report = JSON.parse(readFileSync(join(root.dir, 'latest', 'report.json'), 'utf8')) as { scenarios: Array<{ replay: string }> };
      expect(report.scenarios[0]!.replay).toMatch(
        new RegExp(` --queue postgres .*--pg-url ${escapeRegExp(urlWordWithoutPassword(PG_URL, 'QD_PG_PASSWORD', 'PostgreSQL'))}$`),
      );

      const left = await cli(['clean', '--under', root.dir, '--json']);
      expect(left.exitCode, left.stderr).toBe(0);
      expect(JSON.parse(left.stdout).leftovers).toEqual([expect.objectContaining({ name: kept[0], state: 'kept', action: 'left' })]);
      expect(await POSTGRES.exists(kept[0]!)).toBe(true);

      // Unlimited, but a dry run: the schema this test made without a mark is listed, and left.
      const all = await cli(['clean', '--dry-run', '--json']);
      expect(all.exitCode, all.stderr).toBe(0);
      expect(JSON.parse(all.stdout).leftovers).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: unmarked.schema, state: 'unmarked', action: 'left', owner: null })]),
      );

      const taken = await cli(['clean', '--under', root.dir, '--include-kept']);
      expect(taken.exitCode, taken.stderr).toBe(0);
      expect(taken.stdout).toMatch(new RegExp(`removed +schema ${kept[0]} \\(postgres; kept by --keep`));
      expect(await POSTGRES.exists(kept[0]!)).toBe(false);
      expect(await POSTGRES.exists(unmarked.schema)).toBe(true);
    });
  },
);
