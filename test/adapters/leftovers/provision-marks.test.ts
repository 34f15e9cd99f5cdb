import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listDrillPrefixes } from '../../../src/adapters/bullmq/leftovers.js';
import { listDrillDatabases } from '../../../src/adapters/graphile-worker/leftovers.js';
import { parseLocator } from '../../../src/adapters/graphile-worker/locator.js';
import type { Leftover } from '../../../src/adapters/leftovers/leftover.js';
import { ownerState } from '../../../src/adapters/leftovers/owner-state.js';
import { hostHere, lookAtProcess } from '../../../src/adapters/leftovers/process-identity.js';
import { listDrillSchemas } from '../../../src/adapters/pg/leftovers.js';
import { SCHEMA_PREFIX } from '../../../src/adapters/pg/provision.js';
import { PG_BOSS_SCHEMA_PREFIX } from '../../../src/adapters/pg-boss/schema-name.js';
import { queueImpl } from '../../../src/queues/registry.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { REDIS_URL, skipWithoutRedis } from '../../helpers/redis.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * Each queue on a server, provisioned as a drill provisions it, carries its
 * owner mark from the start: clean's listing finds it under the name the
 * adapter chose, names this process and the run directory, with a live lease,
 * and judges it running; a teardown with --keep marks it kept. Without the
 * mark, clean would take nothing a killed drill left (it never removes an
 * unmarked one).
 */

interface Case {
  queue: string;
  skip: boolean;
  servers: { pgUrl?: string; redisUrl?: string };
  /** What clean lists on that server. */
  list(): Promise<Leftover[]>;
  /** The listed name of a locator. */
  name(locator: string): string;
}

const CASES: Case[] = [
  {
    queue: 'postgres',
    skip: skipWithoutPg('the owner mark of a postgres schema (test/adapters/leftovers/provision-marks.test.ts)'),
    servers: { pgUrl: PG_URL },
    list: () => listDrillSchemas(PG_URL, [SCHEMA_PREFIX]),
    name: (locator) => locator,
  },
  {
    queue: 'pg-boss',
    skip: skipWithoutPg('the owner mark of a pg-boss schema (test/adapters/leftovers/provision-marks.test.ts)'),
    servers: { pgUrl: PG_URL },
    list: () => listDrillSchemas(PG_URL, [PG_BOSS_SCHEMA_PREFIX]),
    name: (locator) => locator,
  },
  {
    queue: 'graphile-worker',
    skip: skipWithoutPg('the owner mark of a graphile-worker database (test/adapters/leftovers/provision-marks.test.ts)'),
    servers: { pgUrl: PG_URL },
    list: () => listDrillDatabases(PG_URL),
    name: (locator) => parseLocator(locator).database,
  },
  {
    queue: 'bullmq',
    skip: skipWithoutRedis('the owner mark of a BullMQ key prefix (test/adapters/leftovers/provision-marks.test.ts)'),
    servers: { redisUrl: REDIS_URL },
    list: () => listDrillPrefixes(REDIS_URL),
    name: (locator) => locator,
  },
];

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const judge = (leftover: Leftover) => ownerState(leftover.mark, { here: hostHere(), lookAt: lookAtProcess, leaseLive: leftover.leaseLive });

describe('what a drill provisions on a server', () => {
  for (const c of CASES) {
    it.skipIf(c.skip)(`is marked as its drill's from the start, and kept by --keep (${c.queue})`, async () => {
      const run = tempRunDir(`marks-${c.queue}`);
      cleanup.push(run.remove);
      const made = await queueImpl(c.queue).provision({ runDir: run.dir, runId: `test marks ${randomUUID()}`, servers: c.servers });
      const name = c.name(made.locator);
      const find = async () => (await c.list()).find((leftover) => leftover.name === name);
      cleanup.push(async () => (await find())?.remove());

      const running = await find();
      expect(running, `${name} among what clean lists`).toBeDefined();
      expect(running!.mark).toMatchObject({ tool: 'queue-drill', queue: c.queue, pid: process.pid, runDir: resolve(run.dir) });
      expect(running!.mark!.kept).toBeUndefined();
      expect(running!.leaseLive).toBe(true);
      expect(judge(running!).state).toBe('running');

      await made.teardown({ keep: true });
      const kept = await find();
      expect(kept, `${name} still there once kept`).toBeDefined();
      expect(kept!.mark).toMatchObject({ queue: c.queue, pid: process.pid, kept: true });
      expect(judge(kept!).state).toBe('kept');
    });
  }
});
