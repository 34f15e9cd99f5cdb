import { systemClock } from '../../kernel/clock.js';
import type { ConnectOptions, QueueConnection } from '../../port/adapter.js';
import { queueOptionsFromEnv } from '../../port/queue-options.js';
import { resolvePgUrl } from '../pg/connection.js';
import { quoteIdent } from '../pg/identifier.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { GRAPHILE_SWEEP_MS, type GraphileContext, releaseUtils } from './context.js';
import { enqueue } from './enqueue.js';
import { humanOps } from './human.js';
import { applicationName } from './identity.js';
import { databaseUrl, type GraphileLocation, locatorOf } from './locator.js';
import { graphileOptions } from './options.js';
import { NamedPools } from './pool.js';
import { progress, snapshot } from './snapshot.js';
import { takeoverOps } from './takeover.js';
import { work } from './work.js';

/** Where provision put the saga file: every process, the judge's too, finds it through the locator alone. */
async function sagaFileOf(pools: NamedPools, location: GraphileLocation): Promise<string> {
  const { rows } = await pools
    .get(applicationName('worker', 'observer'), 1)
    .query<{ saga_file: string }>(`SELECT saga_file FROM ${quoteIdent(location.schema)}.qd_drill`)
    .catch((error: unknown) => {
      throw new Error(`${locatorOf(location)} is not a graphile-worker queue provisioned by queue-drill (no qd_drill table)`, { cause: error });
    });
  const file = rows[0]?.saga_file;
  if (!file) throw new Error(`${locatorOf(location)} is not a graphile-worker queue provisioned by queue-drill (no qd_drill row)`);
  return file;
}

/**
 * One process's connection to a drill's graphile queue. No `manual` part:
 * graphile claims jobs only inside its own run() loop and offers no public
 * claim-one-job call. No `compensation` part: it has no state for a job
 * waiting for the coordinator to undo its steps. A `takeover` part only with
 * release_dead_locks: without it nothing but graphile itself unlocks a job, so
 * the drill's coordinator finds nothing to take back.
 */
export async function connectGraphile(location: GraphileLocation, options: ConnectOptions): Promise<QueueConnection> {
  // A drill's process is given the options in its environment; the harness and the tests pass them.
  const queueOptions = graphileOptions(options.queueOptions ?? queueOptionsFromEnv());
  const url = databaseUrl(resolvePgUrl(options.servers?.pgUrl), location.database);
  const pools = new NamedPools(url);
  let saga: FileSagaStore;
  try {
    // The saga's times come from this process's clock, like every saga beside the run.
    saga = FileSagaStore.open(await sagaFileOf(pools, location), options.clock ?? systemClock());
  } catch (error) {
    await pools.close();
    throw error;
  }
  const ctx: GraphileContext = {
    url,
    schema: location.schema,
    options: queueOptions,
    leaseMs: options.leaseMs,
    skewMarginMs: options.skewMarginMs,
    lockHeldMs: queueOptions.releaseDeadLocks ? options.leaseMs : GRAPHILE_SWEEP_MS,
    pools,
    saga,
    utils: new Map(),
  };
  return {
    enqueue: (request) => enqueue(ctx, request),
    work: (handler, workOptions) => work(ctx, handler, workOptions),
    snapshot: (snapshotOptions) => snapshot(ctx, snapshotOptions),
    progress: () => progress(ctx),
    saga,
    ...(queueOptions.releaseDeadLocks ? { takeover: takeoverOps(ctx) } : {}),
    human: humanOps(ctx),
    async close() {
      await releaseUtils(ctx);
      await pools.close();
      saga.close();
    },
  };
}
