import { createHash } from 'node:crypto';
import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { SEED_RETRY_DELAY } from '../../port/retry-delay.js';
import { queueImpl } from '../../queues/registry.js';
import type { ChildSpec } from './child-spec.js';
import type { ChildWork } from './child-work.js';

/** The digest every no-op job is completed with: done always needs a verified result's digest. */
export const NOOP_DIGEST = createHash('sha256').update('no-op').digest('hex');

/** Which adapter each reference target is: the very one a drill's workers connect through. */
const QUEUE_OF = { 'sqlite-queue': 'reference', 'postgres-queue': 'postgres' } as const;

/**
 * A worker of the reference queue as a drill's worker process runs it: the
 * adapter's connection and the queue's own loop (claim, hand over, complete
 * under the lease), around a handler that does nothing and says done.
 */
export async function openReferenceQueueWork(spec: ChildSpec): Promise<ChildWork> {
  if (spec.target !== 'sqlite-queue' && spec.target !== 'postgres-queue') throw new Error(`not a reference queue target: ${spec.target}`);
  const connection = await queueImpl(QUEUE_OF[spec.target]).connect(spec.locator, {
    clock: systemClock(),
    random: seededRandom(spec.index + 1),
    leaseMs: 30_000,
    skewMarginMs: 1_000,
    retryDelay: SEED_RETRY_DELAY,
  });
  return {
    async run(stop) {
      let units = 0;
      let lastAt: number | null = null;
      await connection.work(async () => ({ kind: 'done', digest: NOOP_DIGEST }), {
        workerId: spec.name,
        stop,
        pollMs: 2,
        exitWhenDrained: true,
        maxJobs: 0,
        maxAttemptMs: 300_000,
        log: () => undefined,
        onSettled: (_claim, _settlement, write) => {
          if (!write?.ok) throw new Error(`a no-op job's complete was refused: ${write ? write.refused : 'no write'}`);
          units++;
          lastAt = Date.now();
        },
      });
      return { units, lastAt };
    },
    close: () => connection.close(),
  };
}
