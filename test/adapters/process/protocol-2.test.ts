import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAdapter } from '../../../src/adapters/process/process-adapter.js';
import { SAGA_FILE_ENV } from '../../../src/adapters/process/saga-file.js';
import { joinWords } from '../../../src/cli/command.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { DrillDemands } from '../../../src/port/adapter.js';
import { connectQueue } from '../../../src/port/connect-queue.js';
import { LOCAL_SERVERS } from '../../../src/port/servers.js';
import { drillDemands } from '../../helpers/drill-demands.js';
import { tempRunDir } from '../../helpers/run-dir.js';
import { PYTHON_EXAMPLE } from './python.js';

/*
 * The adapter's side of protocol 2, against a child whose queue is a name on
 * a server: what the hello says of where the queue lives becomes the
 * adapter's locatorKind and needs; provision and teardown name the servers;
 * the saga's file is in the run directory (a name is no place for a file),
 * told to the drill's processes in their environment; fit is asked of the child.
 */

const CHILD = joinWords([process.execPath, 'test/fixtures/protocol/name-locator.mjs']);
const SERVERS = { redisUrl: 'redis://127.0.0.1:6379' };

const DEMANDS: DrillDemands = drillDemands({
  skewMarginMs: 100,
  pollMs: 20,
  retryDelay: { baseMs: 100, capMs: 1_000, jitterMs: 10 },
  timeoutMs: 30_000,
});

let run: ReturnType<typeof tempRunDir>;
let log: string;
beforeEach(() => {
  run = tempRunDir('protocol-2');
  log = join(run.dir, 'requests.jsonl');
  process.env.NAME_LOCATOR_LOG = log;
});
afterEach(() => {
  delete process.env.NAME_LOCATOR_LOG;
  run.remove();
});

const requests = () =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('a protocol 2 child with its queue on a server', () => {
  it('is a name-locator queue that needs Redis, provisioned and torn down on the servers the drill names', { timeout: 30_000 }, async () => {
    const adapter = processAdapter(CHILD);
    expect(adapter.locatorKind).toBe('name');
    expect(adapter.needs).toEqual(['redisUrl']);
    expect(adapter.version).toBe('name-locator 0.1.0 (process protocol 2)');
    const provisioned = await adapter.provision({ runDir: run.dir, runId: 'r1', servers: SERVERS });
    expect(provisioned.locator).toBe('drill-r1');
    // The saga's checkpoints beside the run: in the run directory, named to every drill process in its environment.
    const sagaFile = join(run.dir, 'queue.saga.db');
    expect(provisioned.env).toEqual({ [SAGA_FILE_ENV]: sagaFile });
    expect(existsSync(sagaFile)).toBe(true);
    await provisioned.teardown({ keep: false });
    expect(requests().map((r) => [r.op, r.servers, r.store ?? null, r.keep ?? null])).toEqual([
      // Every server, each the one given or else the local one (the built-in queues' fallback).
      ['provision', { pg_url: LOCAL_SERVERS.pgUrl, redis_url: SERVERS.redisUrl }, null, null],
      ['teardown', { pg_url: LOCAL_SERVERS.pgUrl, redis_url: SERVERS.redisUrl }, 'drill-r1', false],
    ]);
  });

  it('connects a process handed the provisioned environment to the saga file in the run directory, never one in its cwd', {
    timeout: 30_000,
  }, async () => {
    const adapter = processAdapter(CHILD);
    const provisioned = await adapter.provision({ runDir: run.dir, runId: 'r3', servers: SERVERS });
    const stray = `${provisioned.locator}.saga.db`;
    const queue = await connectQueue(adapter, provisioned.locator, { clock: systemClock(), random: seededRandom(3), env: provisioned.env });
    try {
      expect(existsSync(join(run.dir, 'queue.saga.db'))).toBe(true);
      expect(existsSync(stray)).toBe(false);
    } finally {
      await queue.close();
      await provisioned.teardown({ keep: false });
    }
  });

  it("asks the child whether it can run a drill, after the hello's limits, and reports its mapping or its reason", { timeout: 30_000 }, async () => {
    const adapter = processAdapter(CHILD);
    const fine = await adapter.fit!(DEMANDS, SERVERS);
    expect(fine).toMatchObject({ ok: true, mapping: { protocol: 2, namespace_per_drill: true, lease_ms: 400 } });
    expect(await adapter.fit!({ ...DEMANDS, holderDies: true }, SERVERS)).toEqual({ ok: false, reason: 'no holder may die here', unsupported: true });
    // Beyond the hello's own limits the child is not asked.
    expect(await adapter.fit!({ ...DEMANDS, leaseMs: 50 }, SERVERS)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/leases of 100 ms or more/),
    });
    expect(requests().map((r) => [r.op, (r.demands as { lease_ms: number }).lease_ms])).toEqual([
      ['fit', 400],
      ['fit', 400],
    ]);
  });

  it("leaves a file locator's queue with its run directory: the report's history and approve commands read it", { timeout: 30_000 }, async () => {
    const adapter = processAdapter(PYTHON_EXAMPLE);
    expect(adapter.locatorKind).toBe('file');
    const provisioned = await adapter.provision({ runDir: run.dir, runId: 'r2', servers: {} });
    await provisioned.teardown({ keep: false });
    expect(existsSync(provisioned.locator)).toBe(true);
  });
});
