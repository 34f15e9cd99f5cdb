import { setTimeout as sleep } from 'node:timers/promises';
import { utc, type Clock } from '../kernel/clock.js';
import type { Random } from '../kernel/random.js';
import { secretsInPayload } from '../kernel/redact.js';
import type { QueueImpl } from '../adapters/registry.js';
import { SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { compensatePlan } from '../saga/compensate.js';
import { parsePlan } from '../saga/plan.js';
import type { WorldPort } from '../saga/world-port.js';
import { jsonLogger } from '../kernel/log.js';
import { reconcileExpiredLeases } from './reconcile-expired.js';

export interface CoordinatorOptions {
  store: string;
  /** The queue implementation under test. */
  queue: QueueImpl;
  id: string;
  world: WorldPort;
  clock: Clock;
  random: Random;
  leaseMs: number;
  skewMarginMs: number;
  /** How often it sweeps leases and looks for sagas to compensate. */
  tickMs: number;
  stop: AbortSignal;
}

/**
 * The transaction coordinator of seed 003, as a process that can be killed and
 * restarted like a worker: each tick it sweeps expired leases (reconciling
 * what a dead worker left in doubt), then compensates every saga that waits for
 * it, under a fenced lease so a restarted coordinator resumes half-done work.
 */
export async function runCoordinator(options: CoordinatorOptions): Promise<void> {
  const queue = options.queue.open(options.store, {
    clock: options.clock,
    random: options.random,
    leaseMs: options.leaseMs,
    skewMarginMs: options.skewMarginMs,
  });
  const log = jsonLogger(`coordinator:${options.id}`, () => utc(options.clock.now()));
  log({ event: 'started', pid: process.pid });
  try {
    while (!options.stop.aborted) {
      for (const released of await reconcileExpiredLeases(queue, options.world, options.id, options.queue.sagaRules)) log({ event: 'lease-expired', ...released });
      await compensateWaiting(queue, options, log);
      await sleep(options.tickMs, undefined, { signal: options.stop }).catch(() => undefined);
    }
  } finally {
    queue.close();
    log({ event: 'stopped' });
  }
}

async function compensateWaiting(queue: SqliteQueue, options: CoordinatorOptions, log: ReturnType<typeof jsonLogger>): Promise<void> {
  for (;;) {
    if (options.stop.aborted) return;
    const claimed = queue.claimCompensation(options.id);
    if (!claimed) return;
    const payload = JSON.parse(claimed.job.payload_json) as { plan?: unknown };
    const secrets = secretsInPayload(payload);
    const outcome = await compensatePlan({
      db: queue.db,
      lease: claimed.lease,
      job: claimed.job,
      plan: parsePlan(payload.plan),
      world: options.world,
      now: () => options.clock.now(),
      secrets,
      ...(options.queue.sagaRules ? { rules: options.queue.sagaRules } : {}),
    });
    log({ event: `saga-${outcome.kind}`, jobId: claimed.job.id, outcome }, secrets);
    if (outcome.kind === 'compensated' || outcome.kind === 'compensation_failed') {
      queue.finishCompensation(claimed.lease, outcome.reason);
    } else {
      // Try again next tick; the lease keeps other coordinators off until then.
      return;
    }
  }
}
