import { setTimeout as sleep } from 'node:timers/promises';
import type { WakeSignals } from './wake-signals.js';

/**
 * However quiet the store, an idle worker claims again this often: a bound on
 * what a missed signal could cost, not a poll (the signals wake it first).
 */
export const MAX_IDLE_MS = 250;

/**
 * What a worker that found nothing to claim waits for before it tries again.
 * A claim is a write transaction (it sweeps expired leases first), so polling
 * with claims costs a drill's idle workers most of their CPU and takes the
 * write lock from the ones with work. Where the store gives its wake signals,
 * the process looks every `pollMs` at a counter alone and claims again when
 * another process has committed since `changeCountBefore` (read before the
 * claim that found nothing, so a commit racing that claim still wakes it), or
 * when a job falls due by time, or after `maxIdleMs` at most. Elsewhere it
 * sleeps `pollMs`, as before.
 */
export async function waitForWork(
  signals: WakeSignals | null | undefined,
  changeCountBefore: number | undefined,
  pollMs: number,
  stop: AbortSignal,
  maxIdleMs = MAX_IDLE_MS,
): Promise<void> {
  const pause = () => sleep(pollMs, undefined, { signal: stop }).catch(() => undefined);
  if (!signals || changeCountBefore === undefined) return pause();
  const due = await signals.msUntilDue();
  const deadline = Date.now() + Math.min(due ?? maxIdleMs, maxIdleMs);
  // One poll at least, as before: a job due now that the caller could not take (a world that cannot be asked) is not spun on.
  do {
    await pause();
  } while (!stop.aborted && Date.now() < deadline && signals.changeCount() === changeCountBefore);
}
