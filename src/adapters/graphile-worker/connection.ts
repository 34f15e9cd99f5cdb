import { systemClock } from '../../kernel/clock.js';
import type { ConnectOptions, QueueConnection } from '../../port/adapter.js';
import { resolvePgUrl } from '../postgres/connection.js';
import { quoteIdent } from '../postgres/identifier.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { type GraphileContext, releaseUtils } from './context.js';
import { enqueue } from './enqueue.js';
import { humanOps } from './human.js';
import { applicationName } from './identity.js';
import { NamedPools } from './pool.js';
import { progress, snapshot } from './snapshot.js';
import { takeoverOps } from './takeover.js';
import { work } from './work.js';

/** Where provision put the saga file: every process, the judge's too, finds it through the locator alone. */
async function sagaFileOf(pools: NamedPools, schema: string): Promise<string> {
  const { rows } = await pools
    .get(applicationName('worker', 'observer'), 1)
    .query<{ saga_file: string }>(`SELECT saga_file FROM ${quoteIdent(schema)}.qd_drill`);
  const file = rows[0]?.saga_file;
  if (!file) throw new Error(`schema ${schema} is not a graphile-worker queue provisioned by queue-drill (no qd_drill row)`);
  return file;
}

/**
 * One process's connection to a drill's graphile queue. No `manual` part:
 * graphile claims jobs only inside its own run() loop and offers no public
 * claim-one-job call. No `compensation` part: it has no state for a job
 * waiting for the coordinator to undo its steps.
 */
export async function connectGraphile(schema: string, options: ConnectOptions): Promise<QueueConnection> {
  const url = resolvePgUrl(options.servers?.pgUrl);
  const pools = new NamedPools(url);
  let saga: FileSagaStore;
  try {
    // The saga's times come from this process's clock, like every saga beside the run.
    saga = FileSagaStore.open(await sagaFileOf(pools, schema), options.clock ?? systemClock());
  } catch (error) {
    await pools.close();
    throw error;
  }
  const ctx: GraphileContext = { url, schema, leaseMs: options.leaseMs, skewMarginMs: options.skewMarginMs, pools, saga, utils: new Map() };
  return {
    enqueue: (request) => enqueue(ctx, request),
    work: (handler, workOptions) => work(ctx, handler, workOptions),
    snapshot: (snapshotOptions) => snapshot(ctx, snapshotOptions),
    progress: () => progress(ctx),
    saga,
    takeover: takeoverOps(ctx),
    human: humanOps(ctx),
    async close() {
      await releaseUtils(ctx);
      await pools.close();
      saga.close();
    },
  };
}
