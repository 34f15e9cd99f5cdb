import { makeWorkerUtils, type WorkerUtils } from 'graphile-worker';
import type { FileSagaStore } from '../saga-file/file-saga-store.js';
import { silentLogger } from './logger.js';
import type { NamedPools } from './pool.js';

/** What every part of one process's connection to a drill's graphile queue shares. */
export interface GraphileContext {
  url: string;
  schema: string;
  /** The drill's lease: a lock older than this (plus the skew margin) is taken for a dead worker's. */
  leaseMs: number;
  skewMarginMs: number;
  pools: NamedPools;
  saga: FileSagaStore;
  /** graphile's WorkerUtils, one per application_name, made on first use. */
  utils: Map<string, Promise<WorkerUtils>>;
}

/** The one task of the drill's task list: every job of a drill runs the drill's handler. */
export const DRILL_TASK = 'queue_drill';

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
