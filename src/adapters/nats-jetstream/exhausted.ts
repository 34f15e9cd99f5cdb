import type { JobSnapshot } from '../../port/snapshot.js';
import type { NatsContext } from './context.js';
import { PULL_EXPIRES_MS } from './fit.js';

/*
 * A message JetStream has given up on: its last holder let the ack wait of
 * its max_deliver-th delivery pass. JetStream keeps it in the stream and
 * never delivers it again (it publishes a MAX_DELIVERIES advisory when a pull
 * would have taken it: probe N3), so no worker will ever hear of it, and the
 * record would show it running for ever. The sweep finds these: a job the
 * record has running, on JetStream's last delivery, whose lease (renewals
 * included) ended longer ago than the skew margin and a pull's wait, and
 * whose message is still in the stream; it records the job as gone to review
 * by the queue's own machinery. Cheap where there is nothing to find: one
 * read of the record's jobs, and a request to the server only for a job that
 * qualifies.
 */

/** Past a lease's end, before the sweep believes JetStream has given up: the record's write of a late ack, a slow pull. */
const SETTLE_SLACK_MS = 250;

/** Running jobs whose lease (the latest renewal under their epoch included) ended before `before`. */
function leaseEndedBefore(ctx: NatsContext, jobs: readonly JobSnapshot[], before: number): JobSnapshot[] {
  const running = jobs.filter((job) => job.status === 'running');
  if (running.length === 0) return [];
  const renewals = ctx.index.renewals();
  return running.filter((job) => {
    const renewed = renewals.get(job.id);
    const ends = [job.leaseUntil, renewed && renewed.epoch === job.epoch ? renewed.leaseUntil : null].filter((at): at is string => at !== null);
    return ends.length > 0 && Math.max(...ends.map((at) => Date.parse(at))) < before;
  });
}

/** Records every job JetStream has given up on as gone to review; returns how many it moved. */
export async function sweepExhausted(ctx: NatsContext, jobs: readonly JobSnapshot[]): Promise<number> {
  const candidates = leaseEndedBefore(ctx, jobs, ctx.now() - ctx.skewMarginMs - PULL_EXPIRES_MS - SETTLE_SLACK_MS);
  if (candidates.length === 0) return 0;
  const { maxDeliver } = await ctx.consumer.read();
  if (maxDeliver <= 0) return 0;
  let moved = 0;
  for (const job of candidates) {
    const message = ctx.index.current(job.id) ?? { seq: Number(job.id), attemptsBefore: 0 };
    const deliveries = job.epoch - message.attemptsBefore;
    // Below max_deliver, JetStream delivers it again at the next pull: not gone anywhere.
    if (deliveries < maxDeliver) continue;
    if ((await ctx.jsm.streams.getMessage(ctx.stream, { seq: message.seq })) === null) continue;
    const reason =
      `retries exhausted: the ack wait of ${job.holder ?? 'its holder'} ran out on its last attempt (${job.attempts} of ${job.maxAttempts}); ` +
      `JetStream delivered it max_deliver (${maxDeliver}) times and will not again (the message stays in the stream)`;
    const after = ctx.record.change(job.id, (now) =>
      now.status === 'running' && now.epoch === job.epoch
        ? [
            {
              to: 'review',
              worker: null,
              actor: 'coordinator',
              reason,
              set: { outcome: 'review', reviewReason: reason, holder: null, leaseUntil: null, nextRunAt: null },
            },
          ]
        : [],
    );
    if (after?.status === 'review') moved++;
  }
  return moved;
}

/**
 * The sweep run now and then as a side errand (the harness's reads, an idle
 * worker): at most once per `everyMs`, never two at once, never awaited by
 * the caller (a restarting server must not hold the harness's read) and
 * never failing it. A move it makes is seen at the next read.
 */
export class ExhaustedSweeper {
  private last = 0;
  private running: Promise<number> | undefined;

  constructor(
    private readonly ctx: NatsContext,
    private readonly everyMs = 100,
  ) {}

  /** Sweeps now (maintain()), after a sweep in flight. */
  async now(): Promise<number> {
    await this.settled();
    return this.start(this.ctx.record.snapshot({ history: false }).jobs);
  }

  /** Starts a sweep with the jobs the caller read anyway, unless one runs or the last began less than `everyMs` ago. */
  maybe(jobs: readonly JobSnapshot[]): void {
    if (this.running || this.ctx.now() - this.last < this.everyMs) return;
    // The server restarting, or gone: the next read sweeps again.
    this.start(jobs).catch(() => 0);
  }

  /** Resolves once no sweep runs (before the connection closes the record under it). */
  async settled(): Promise<void> {
    await this.running?.catch(() => 0);
  }

  private start(jobs: readonly JobSnapshot[]): Promise<number> {
    this.last = this.ctx.now();
    const sweep = sweepExhausted(this.ctx, jobs).finally(() => {
      if (this.running === sweep) this.running = undefined;
    });
    this.running = sweep;
    return sweep;
  }
}
