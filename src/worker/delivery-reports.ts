import type { Claim, QueueOwnWrite, Settlement } from '../port/delivery.js';
import type { WorldPort } from '../saga/world-port.js';

/*
 * A worker tells the world where each delivery stands: it began (sent after
 * the queue handed the job over), it is about to write (sent before the
 * queue's write), and whether the queue applied the write. The world orders
 * these against every holder's calls, so a write made after another holder's
 * delivery began is seen as stale at the world, whatever the queue records
 * (src/world/ledger/deliveries-table.ts). A write the queue's loop makes on
 * its own (pg-boss's fail of a handler that outlived its lease) is told as it
 * goes out, since nothing of the drill's runs before it. A report the world
 * cannot take is dropped: it is evidence, never a reason for a job to fail.
 */

type Delivered = Pick<Claim, 'jobId' | 'holder' | 'attempt' | 'epoch'>;

/** The reports of one worker process; `sent()` waits for those still on their way. */
export class DeliveryReports {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly world: WorldPort | null) {}

  /** The queue handed the job over: told before the drill touches it. */
  began(delivery: Delivered): Promise<void> {
    return this.report(delivery, { event: 'began' });
  }

  /** The handler decided: told before the queue's write, for the settlements that write. */
  writing(delivery: Delivered, settlement: Settlement): Promise<void> {
    if (settlement.kind === 'lease_lost') return Promise.resolve();
    return this.report(delivery, { event: 'writing', write: settlement.kind });
  }

  /** Whether the queue applied the settlement's write (told in the background: the loop does not wait for it). */
  wrote(delivery: Delivered, settlement: Settlement, applied: boolean): void {
    this.inBackground(this.report(delivery, { event: 'wrote', write: settlement.kind, applied }));
  }

  /** The queue's loop writes on its own: told now, and whether it applied once the queue's record shows it. */
  queueWrites(delivery: Delivered, write: QueueOwnWrite, applied: Promise<boolean | null>): void {
    const told = async () => {
      await this.report(delivery, { event: 'writing', write });
      const ok = await applied.catch(() => null);
      if (ok !== null) await this.report(delivery, { event: 'wrote', write, applied: ok });
    };
    this.inBackground(told());
  }

  /** Resolves once every report still on its way has been answered or dropped. */
  async sent(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private inBackground(sending: Promise<void>): void {
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  private async report(delivery: Delivered, what: { event: 'began' | 'writing' | 'wrote'; write?: string; applied?: boolean }): Promise<void> {
    if (!this.world?.reportDelivery) return;
    try {
      await this.world.reportDelivery({
        job: delivery.jobId,
        worker: delivery.holder,
        attempt: delivery.attempt,
        epoch: delivery.epoch,
        ...what,
      });
    } catch {
      // Dropped: the world may be restarting or gone; the judge counts the reports it has.
    }
  }
}
