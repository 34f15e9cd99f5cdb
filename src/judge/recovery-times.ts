import type { RecoveryReport } from '../report/schema.js';
import type { Evidence } from './evidence.js';

/*
 * How long the queue took to recover from each SIGKILL the harness dealt:
 * from the kill to the first claim of the job the process held (reclaimed),
 * and to the job's first settling (done or review) after it. Only the queue's
 * own state changes count: a refused stale write is not a recovery. A kill
 * of a process that held no job (a producer, an idle worker) has no times;
 * a job never claimed again has no reclaim time, and maybe a settle time (a
 * lease swept into review on its last attempt).
 */

/** Per kill on the harness's timeline, in order: how long until the job it held was claimed again, and until it settled. */
export function recoveryTimes(evidence: Pick<Evidence, 'timeline' | 'events'>): RecoveryReport[] {
  const kills = evidence.timeline.filter((e) => e.kind === 'kill');
  return kills.map((kill) => {
    const jobId = kill.job ?? null;
    // Fixed-width UTC strings: comparing them as text compares the instants.
    const after = (e: { at: string }) => e.at >= kill.at;
    const events = jobId === null ? [] : evidence.events.filter((e) => e.jobId === jobId && e.kind === 'transition' && after(e));
    const reclaimed = events.find((e) => e.to === 'running');
    const settled = events.find((e) => e.to === 'done' || e.to === 'review');
    const ms = (at: string | undefined) => (at === undefined ? null : Date.parse(at) - Date.parse(kill.at));
    return {
      process: kill.process ?? '?',
      killedAt: kill.at,
      point: kill.point ?? null,
      jobId,
      reclaimedAt: reclaimed?.at ?? null,
      settledAt: settled?.at ?? null,
      killToReclaimMs: ms(reclaimed?.at),
      killToSettledMs: ms(settled?.at),
    };
  });
}
