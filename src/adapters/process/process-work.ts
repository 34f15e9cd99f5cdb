import { secretsInPayload, storableError } from '../../kernel/redact.js';
import type { SagaStore } from '../../port/checkpoint.js';
import type { Claim, DeliveryHandler, Settlement, WorkOptions, WriteResult } from '../../port/delivery.js';
import type { ChildChannel } from './child-channel.js';
import { count, leaseFields, ProtocolError, toClaim } from './protocol.js';
import { fencedWrite, settlementWire } from './settlement-wire.js';

/*
 * A worker whose consumption loop runs in the child. The drill sends `work`;
 * the child claims with its own loop and sends each job as a `deliver` event,
 * then waits for that job's `settle` before it claims again. Meanwhile this
 * side renews the lease, each renewal a `heartbeat` request preceded by the
 * heartbeat fault point: the child never renews on its own, so a drill worker
 * that is stopped (SIGSTOP) or killed loses its lease as the judge expects.
 * `stop_work` (SIGTERM) ends the loop after the job in hand; the child answers
 * `work` when its loop has ended.
 */
export class ProcessWork {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: ChildChannel,
    private readonly saga: SagaStore,
    private readonly handler: DeliveryHandler,
    private readonly options: WorkOptions & { leaseMs: number; now: () => number },
  ) {}

  /** Runs until the child's loop ends (stopped, max jobs, drained); the child's exit is an error. */
  async run(): Promise<{ processed: number }> {
    const o = this.options;
    // No timeout: the child answers `work` when its loop ends, after any number of jobs.
    const ended = this.channel.request(
      'work',
      { worker_id: o.workerId, poll_ms: Math.max(1, Math.round(o.pollMs)), max_jobs: o.maxJobs, exit_when_drained: o.exitWhenDrained },
      null,
    );
    const stop = () => {
      this.channel.request('stop_work').catch((error: unknown) => o.log({ event: 'stop-failed', error: storableError(error) }));
    };
    if (o.stop.aborted) stop();
    else o.stop.addEventListener('abort', stop, { once: true });
    try {
      const body = await ended;
      await this.chain;
      return { processed: count(body, 'processed', 'the answer to work') };
    } finally {
      o.stop.removeEventListener('abort', stop);
    }
  }

  /** A `deliver` event: runs after the delivery before it (the child sends one at a time; this keeps it so). */
  onDeliver(wire: unknown): void {
    let claim: Claim;
    try {
      claim = toClaim(wire, 'deliver.delivery');
    } catch (error) {
      this.options.log({ event: 'protocol-violation', error: storableError(error) });
      return;
    }
    this.chain = this.chain.then(() => this.deliver(claim));
  }

  private async deliver(claim: Claim): Promise<void> {
    const o = this.options;
    o.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
    if (claim.leaseUntil !== null) o.onLease?.(claim, claim.leaseUntil, 'claim');
    const lost = new AbortController();
    const renewal = this.renewEvery(claim, lost);
    let settlement: Settlement;
    try {
      const log = await this.saga.logFor(claim);
      settlement = await this.handler({ ...claim, signal: lost.signal, saga: log });
    } catch (error) {
      // A handler that throws is a bug in the drill: leave the job to its lease, tell the child to go on.
      o.log({ event: 'job-crashed', jobId: claim.jobId, error: storableError(error, secretsInPayload(parsedOrNull(claim.payload))) });
      renewal.stop();
      await this.settle(claim, { kind: 'lease_lost' }).catch(() => undefined);
      return;
    }
    renewal.stop();
    try {
      const write = await this.settle(claim, settlement);
      o.onSettled?.(claim, settlement, write);
    } catch (error) {
      const definite = error instanceof ProtocolError ? error.definite : false;
      o.log({ event: 'settle-failed', jobId: claim.jobId, epoch: claim.epoch, definite, error: storableError(error) });
    }
  }

  /** The one write the settlement asks for, through the child (none for lease_lost, but the child hears of it). */
  private async settle(claim: Claim, settlement: Settlement): Promise<WriteResult | null> {
    const write = await fencedWrite(this.channel, 'settle', claim, { settlement: settlementWire(settlement) });
    return settlement.kind === 'lease_lost' ? null : write;
  }

  /*
   * Renews from the lease the child last granted, when half of what is left
   * has passed (at most every lease/3, the reference's cadence): a delivery
   * reaches this process some time after the child's claim started the lease,
   * and each renewal takes a round trip through the child, so a fixed
   * interval from here would spend part of the lease before it began.
   */
  private renewEvery(claim: Claim, lost: AbortController): { stop(): void } {
    const o = this.options;
    const claimedAt = Date.now();
    let leaseUntil = claim.leaseUntil === null ? Number.NaN : Date.parse(claim.leaseUntil);
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const schedule = () => {
      if (stopped || lost.signal.aborted) return;
      const left = leaseUntil - o.now();
      // No lease end known, or one already past (a queue that renews nothing, such as Celery): at the reference's cadence.
      const wait = Number.isFinite(left) && left > 0 ? Math.min(o.leaseMs / 3, Math.max(10, left / 2)) : o.leaseMs / 3;
      timer = setTimeout(renew, Math.max(10, Math.floor(wait)));
    };
    const renew = async () => {
      if (Date.now() - claimedAt > o.maxAttemptMs) {
        o.log({ event: 'attempt-deadline', jobId: claim.jobId, attempt: claim.attempt, maxAttemptMs: o.maxAttemptMs });
        lost.abort();
        return;
      }
      await o.beforeRenewal?.(claim);
      if (stopped || lost.signal.aborted) return;
      try {
        const body = await this.channel.request('heartbeat', leaseFields(claim));
        if (typeof body.lease_until === 'string') {
          leaseUntil = Date.parse(body.lease_until);
          o.onLease?.(claim, body.lease_until, 'renewal');
        }
      } catch (error) {
        if (error instanceof ProtocolError && error.code === 'lease_lost') {
          o.log({ event: 'lease-lost', jobId: claim.jobId, epoch: claim.epoch, refused: error.message });
          lost.abort();
          return;
        }
        // The child could not say now: the next renewal tries again, and the lease's expiry decides.
        o.log({ event: 'renewal-failed', jobId: claim.jobId, error: storableError(error) });
      }
      schedule();
    };
    schedule();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
