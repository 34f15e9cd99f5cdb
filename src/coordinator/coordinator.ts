import { type Clock, utc } from '../kernel/clock.js';
import { jsonLogger } from '../kernel/log.js';
import type { Random } from '../kernel/random.js';
import { secretsInPayload } from '../kernel/redact.js';
import type { QueueConnection } from '../port/adapter.js';
import { SEED_RETRY_DELAY } from '../port/retry-delay.js';
import { waitForWork } from '../port/wait-for-work.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import type { WorldPort } from '../saga/world-port.js';
import { reconcileExpiredLeases } from './reconcile-expired.js';

export interface CoordinatorOptions {
  /** The queue implementation under test, and where its queue is. */
  queue: QueueUnderDrill;
  locator: string;
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
 * The transaction coordinator of the transaction sketch, as a process that can be killed and
 * restarted like a worker: each tick it sweeps expired leases (reconciling
 * what a dead worker left in doubt), then compensates every saga that waits for
 * it, under a fenced lease so a restarted coordinator resumes half-done work.
 * A queue that takes dead workers' jobs back itself offers no takeover hooks,
 * and one with no compensation hand-off no sagas to wait: the coordinator then
 * has less to do, never something else.
 */
export async function runCoordinator(options: CoordinatorOptions): Promise<void> {
  const queue = await options.queue.connect(options.locator, {
    clock: options.clock,
    random: options.random,
    leaseMs: options.leaseMs,
    skewMarginMs: options.skewMarginMs,
    retryDelay: SEED_RETRY_DELAY,
  });
  const log = jsonLogger(`coordinator:${options.id}`, () => utc(options.clock.now()));
  log({ event: 'started', pid: process.pid });
  try {
    while (!options.stop.aborted) {
      const changeCount = queue.wakeSignals?.changeCount();
      for (const released of await reconcileExpiredLeases(queue, options.world, options.id, options.queue.sagaRules))
        log({ event: 'lease-expired', ...released });
      const retryNextTick = await compensateWaiting(queue, options, log);
      // A saga it must try again is its own to take at once: no write or lease will wake it for that, so it ticks.
      await waitForWork(retryNextTick ? undefined : queue.wakeSignals, changeCount, options.tickMs, options.stop);
    }
  } finally {
    await queue.close();
    log({ event: 'stopped' });
  }
}

/** Compensates every saga that waits; true when one is left to try again next tick. */
async function compensateWaiting(queue: QueueConnection, options: CoordinatorOptions, log: ReturnType<typeof jsonLogger>): Promise<boolean> {
  if (!queue.compensation) return false;
  for (;;) {
    if (options.stop.aborted) return false;
    const claim = await queue.compensation.claim(options.id);
    if (!claim) return false;
    // Loaded at the first saga to compensate, not at start: a plan is parsed with zod, and most coordinators never get one.
    const { compensatePlan } = await import('../saga/compensate.js');
    const { parsePlan } = await import('../saga/plan.js');
    const payload = JSON.parse(claim.payload) as { plan?: unknown };
    const secrets = secretsInPayload(payload);
    const outcome = await compensatePlan({
      claim,
      txLog: await queue.saga.logFor(claim),
      plan: parsePlan(payload.plan),
      world: options.world,
      secrets,
      ...(options.queue.sagaRules ? { rules: options.queue.sagaRules } : {}),
    });
    log({ event: `saga-${outcome.kind}`, jobId: claim.jobId, outcome }, secrets);
    if (outcome.kind === 'compensated' || outcome.kind === 'compensation_failed') {
      await queue.compensation.finish(claim, outcome.kind, outcome.reason);
    } else {
      // Try again next tick; the lease keeps other coordinators off until then.
      return true;
    }
  }
}
