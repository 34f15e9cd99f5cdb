import { type Processor, Worker, type WorkerOptions } from 'bullmq';
import type { Claim } from '../../port/delivery.js';

/** A delivery the worker holds now: its claim, when it began, and the signal the handler watches. */
export interface HeldDelivery {
  claim: Claim;
  startedAt: number;
  lost: AbortController;
}

/** What the drill does at each of BullMQ's renewals. */
export interface RenewalHooks {
  /** The deliveries held now, by job id. */
  held: Map<string, HeldDelivery>;
  maxAttemptMs: number;
  beforeRenewal?: ((claim: Claim) => Promise<void>) | undefined;
  onDeadline: (held: HeldDelivery) => void;
}

/**
 * BullMQ's own Worker, with one seam: its lock manager renews every held lock
 * through `extendJobLocks` on its own timer, and the drill's heartbeat fault
 * point runs just before that (so a fault there delays or stops BullMQ's real
 * renewal), and an attempt past its deadline is left out of the renewal, so
 * its lock runs out and the stalled checker takes the job back.
 */
export class DrillWorker extends Worker {
  private hooks: RenewalHooks | undefined;

  constructor(name: string, processor: Processor, opts: WorkerOptions) {
    super(name, processor, { ...opts, autorun: false });
  }

  attach(hooks: RenewalHooks): void {
    this.hooks = hooks;
  }

  override async extendJobLocks(jobIds: string[], tokens: string[], duration: number): Promise<string[]> {
    const hooks = this.hooks;
    if (!hooks) return super.extendJobLocks(jobIds, tokens, duration);
    const keepIds: string[] = [];
    const keepTokens: string[] = [];
    for (const [i, jobId] of jobIds.entries()) {
      const held = hooks.held.get(jobId);
      if (held && Date.now() - held.startedAt > hooks.maxAttemptMs) {
        hooks.onDeadline(held);
        continue;
      }
      if (held) await hooks.beforeRenewal?.(held.claim);
      keepIds.push(jobId);
      keepTokens.push(tokens[i] ?? '');
    }
    return keepIds.length === 0 ? [] : super.extendJobLocks(keepIds, keepTokens, duration);
  }
}
