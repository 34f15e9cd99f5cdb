import { InternalError } from '../kernel/errors.js';
import type { EnqueueResult, ManualOps, QueueConnection } from '../port/adapter.js';
import type { Claim } from '../port/delivery.js';
import type { QueueImpl } from '../queues/registry.js';

/*
 * The adapter contract's own checks: what any queue behind the port must do,
 * driven through the port alone (enqueue, the manual claim and settle, the
 * snapshot), on a fresh queue each. Where the drills judge a queue from a
 * whole run, these pin one promise each, so a queue author sees which one
 * breaks, and every check has a broken variant it is seen failing against.
 */

/** One racing operation, run by each of several threads at once, each with its own connection. */
export type RaceOp =
  | { kind: 'enqueue'; keys: readonly string[] }
  /** Claims until nothing is left, as worker `${prefix}${thread}`. */
  | { kind: 'claim-all'; prefix: string };

/** What one racing thread did. */
export interface RaceResult {
  thread: number;
  enqueued: Array<EnqueueResult & { key: string }>;
  claimed: Claim[];
}

/** What a check may do with the queue under test. */
export interface ContractContext {
  impl: QueueImpl;
  leaseMs: number;
  skewMarginMs: number;
  /** How long the queue waits before another attempt of a job whose lease ran out (the checks ask for none; some queues keep a floor). */
  retryDelayMs: number;
  /** This process's connection to a fresh queue made for the check. */
  queue: QueueConnection;
  /**
   * Lets `ms` pass on the clock the queue's leases run on: moved at once for a
   * queue on the caller's clock, waited out for one on its server's (so a
   * check asks only for the time it needs).
   */
  passTime(ms: number): Promise<void>;
  /** Runs `op` in `threads` threads at once, each with its own connection, from one starting instant. */
  race(threads: number, op: RaceOp, options?: { leaseMs?: number }): Promise<RaceResult[]>;
}

/** A promise of the contract, and how to see it kept. */
export interface ContractCheck {
  id: string;
  statement: string;
  /**
   * What the check needs of the queue: the manual claim and settle it drives,
   * fencing it judges. A queue without one (or that says why it does not keep
   * it) is "not judged" on the check, with the reason.
   */
  needs: ReadonlyArray<'manual' | 'fencing' | 'dedupe' | 'lease-expiry'>;
  /** Resolves when the promise was kept; throws ContractViolation (what broke, with its evidence) when not. */
  run(ctx: ContractContext): Promise<void>;
}

/** A promise the queue broke, with the evidence. */
export class ContractViolation extends InternalError {
  readonly code = 'QD_CONTRACT_VIOLATION';
}

/** Throws a ContractViolation saying `message` unless `condition` holds. */
export function expectThat(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new ContractViolation(message());
}

/** The manual operations, which a check that declares `needs: ['manual']` is only run with. */
export function manualOf(ctx: ContractContext): NonNullable<QueueConnection['manual']> {
  const manual = ctx.queue.manual;
  if (!manual) throw new ContractViolation('the queue offers no manual claim and settle');
  return manual;
}

/** Enqueues one job under `key` and claims it as w1: the start of every check about one job's lease. */
export async function oneClaimedJob(ctx: ContractContext, key: string, maxAttempts = 3): Promise<{ manual: ManualOps; claim: Claim }> {
  const manual = manualOf(ctx);
  await ctx.queue.enqueue({ key, action: 'sleep', payload: '{}', maxAttempts });
  const claim = await manual.claim('w1');
  expectThat(claim !== null, () => 'nothing to claim after an enqueue');
  return { manual, claim };
}

/**
 * Takes back expired leases as the queue's design says it is done, now: the
 * queue's own upkeep (pg-boss's maintenance, BullMQ's stalled-job check), as
 * its scheduler would within its interval; or, where a coordinator does it,
 * what the drill's coordinator does (each expired lease released to retry).
 * Returns how many jobs it moved.
 */
export async function takeBackExpired(ctx: ContractContext): Promise<number> {
  const takeover = ctx.queue.takeover;
  if (!takeover) return 0;
  if (ctx.impl.capabilities.takeover === 'queue') return takeover.maintain();
  let released = 0;
  for (const expired of await takeover.expiredLeases()) {
    const release = { to: 'retry', reason: "lease expired (taken back by the contract check, as the drill's coordinator)" } as const;
    if (await takeover.releaseExpired(expired, release, 'contract-coordinator')) released++;
  }
  return released;
}

/**
 * Makes a held lease run out: forced where the queue lets a test do it (so a check
 * about fencing is not about lease lengths), else by letting the lease's time pass.
 */
export async function expireLease(ctx: ContractContext, jobId: string): Promise<void> {
  if (ctx.queue.takeover) await ctx.queue.takeover.expireLease(jobId);
  else await ctx.passTime(ctx.leaseMs + ctx.skewMarginMs + 50);
}

/**
 * Claims as `workerId` a job whose lease ran out: at once where claim takes
 * expired leases back; else after they are taken back where the queue's design
 * does it (takeBackExpired); and where the queue then makes the job wait out a
 * retry delay (pg-boss's floor is a second), after that delay.
 */
export async function claimTakenBack(ctx: ContractContext, workerId: string): Promise<Claim | null> {
  const manual = manualOf(ctx);
  const claim = await manual.claim(workerId);
  if (claim !== null) return claim;
  const taken = (await takeBackExpired(ctx)) > 0 ? await manual.claim(workerId) : null;
  if (taken !== null || ctx.retryDelayMs === 0) return taken;
  await ctx.passTime(ctx.retryDelayMs + 50);
  return manual.claim(workerId);
}

/** A verified result's digest, for checks that complete a job. */
export const CONTRACT_DIGEST = 'c0ffee'.padEnd(64, '0');
