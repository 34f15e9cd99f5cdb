/*
 * Where the harness sees jobs claimed: every worker stops at after_claim, and
 * each child's controller tells this one watch, shared by the controllers of a
 * drill. A pause can then last until its job is claimed again (the zombie
 * wakes while the next holder is mid-job), however long the queue takes to
 * hand the job over, instead of for a fixed time that fits one queue's
 * recovery and not another's.
 */

type Waiter = { jobKey: string; attempt: number; wake: () => void };

/** The claims the harness has seen, by job key, and the holds waiting for a later one. */
export class ClaimWatch {
  private readonly highest = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();

  /** A worker reached after_claim with this job under this attempt. */
  seen(jobKey: string, attempt: number): void {
    this.highest.set(jobKey, Math.max(attempt, this.highest.get(jobKey) ?? 0));
    for (const waiter of [...this.waiters]) {
      if (waiter.jobKey === jobKey && attempt > waiter.attempt) {
        this.waiters.delete(waiter);
        waiter.wake();
      }
    }
  }

  /** Resolves once the job is claimed under a later attempt than `attempt` (at once if it already was); `cancel` stops waiting. */
  laterClaim(jobKey: string, attempt: number): { claimed: Promise<void>; cancel: () => void } {
    if ((this.highest.get(jobKey) ?? 0) > attempt) return { claimed: Promise.resolve(), cancel: () => undefined };
    let waiter: Waiter | undefined;
    const claimed = new Promise<void>((resolve) => {
      waiter = { jobKey, attempt, wake: resolve };
      this.waiters.add(waiter);
    });
    return { claimed, cancel: () => waiter && this.waiters.delete(waiter) };
  }
}
