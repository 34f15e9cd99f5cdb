import { makeWorkerUtils, type WorkerUtils } from 'graphile-worker';
import type { FileSagaStore } from '../saga-file/file-saga-store.js';
import { silentLogger } from './logger.js';
import type { GraphileOptions } from './options.js';
import type { NamedPools } from './pool.js';

/** What every part of one process's connection to a drill's graphile queue shares. */
export interface GraphileContext {
  /** The drill's database (the locator's), on the server the process was given. */
  url: string;
  schema: string;
  options: GraphileOptions;
  /** The drill's lease: with release_dead_locks, a lock older than this (plus the skew margin) is taken for a dead worker's. */
  leaseMs: number;
  skewMarginMs: number;
  /**
   * How long a lock holds its job, as the snapshot shows its end: the drill's
   * lease when the coordinator frees older locks, else graphile's own 4 hours.
   */
  lockHeldMs: number;
  pools: NamedPools;
  saga: FileSagaStore;
  /** graphile's WorkerUtils, one per application_name, made on first use. */
  utils: Map<string, Promise<WorkerUtils>>;
}

/** The one task of the drill's task list: every job of a drill runs the drill's handler. */
export const DRILL_TASK = 'queue_drill';

/** graphile's own sweep frees locks older than this (dist/sql/resetLockedAt.js: `locked_at < now() - interval '4 hours'`). */
export const GRAPHILE_SWEEP_MS = 4 * 60 * 60 * 1000;

/** graphile's WorkerUtils on the pool whose connections show `application`. */
export function utilsFor(ctx: GraphileContext, application: string): Promise<WorkerUtils> {
  let utils = ctx.utils.get(application);
  if (!utils) {
    utils = makeWorkerUtils({ pgPool: ctx.pools.get(application), schema: ctx.schema, logger: silentLogger });
    ctx.utils.set(application, utils);
  }
  return utils;
}

/** Releases every WorkerUtils (their pools are the caller's, ended after). */
export async function releaseUtils(ctx: GraphileContext): Promise<void> {
  const all = [...ctx.utils.values()];
  ctx.utils.clear();
  await Promise.allSettled(all.map(async (utils) => (await utils).release()));
}
