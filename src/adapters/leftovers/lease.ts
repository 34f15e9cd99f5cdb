/*
 * The lease of a drill's queue on a server: the harness renews it while the
 * drill runs (a timestamp by the server's clock, or a key the server expires),
 * for the one case its owner mark cannot answer, a drill on another host
 * (its pid means nothing here). A lapsed lease is an owner gone. Generous on
 * purpose: a harness starved for minutes must not lose its queue, and what a
 * dead drill on another host left can wait that long to be swept. A drill on
 * this host is never judged by its lease, only by its process.
 */

/** How often the harness renews its drills' leases. */
export const LEASE_RENEW_MS = 30_000;

/** How long a lease holds without renewal: ten renewals missed. */
export const LEASE_MS = 10 * LEASE_RENEW_MS;

/** How long stopping waits for a renewal under way: a server that stopped answering must not hold up a teardown. */
const STOP_WAIT_MS = 5_000;

/** A renewal running in the background until stopped. */
export interface LeaseRenewal {
  /** Stops renewing, and waits (a few seconds at most) for a renewal under way to settle, so a teardown's write comes after it. */
  stop(): Promise<void>;
}

/**
 * Calls `renew` every `everyMs` until stopped, one at a time. A failed
 * renewal is let go (the drill's own fault may be restarting the server):
 * the next one tries again, and only ten missed in a row lapse the lease.
 * The timer is unref'd: it never keeps a finished process alive.
 */
export function renewWhileRunning(renew: () => Promise<void>, everyMs: number = LEASE_RENEW_MS): LeaseRenewal {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= renew()
      .catch(() => {})
      .finally(() => {
        running = null;
      });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      if (running === null) return;
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise<void>((settle) => (bound = setTimeout(settle, STOP_WAIT_MS).unref()))]);
      clearTimeout(bound);
    },
  };
}
