import { pgBossAdapter } from '../../../src/adapters/pg-boss/pg-boss-adapter.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { QueueConnection } from '../../../src/port/adapter.js';
import { PG_URL } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/** A provisioned pg-boss queue of its own, connected with this lease; each undo step goes on `cleanup` (run in reverse). */
export async function freshPgBossQueue(name: string, leaseMs: number, cleanup: Array<() => Promise<void> | void>): Promise<QueueConnection> {
  const dir = tempRunDir(`pg-boss-${name}`);
  cleanup.push(dir.remove);
  const provisioned = await pgBossAdapter.provision({ runDir: dir.dir, runId: `test pg-boss ${name} ${process.pid}`, servers: { pgUrl: PG_URL } });
  cleanup.push(() => provisioned.teardown({ keep: false }));
  const queue = await pgBossAdapter.connect(provisioned.locator, {
    clock: systemClock(),
    random: seededRandom(1),
    leaseMs,
    skewMarginMs: Math.min(1_000, leaseMs / 10),
    retryDelay: { baseMs: 0, capMs: 0, jitterMs: 0 },
    servers: { pgUrl: PG_URL },
  });
  cleanup.push(() => queue.close());
  return queue;
}
