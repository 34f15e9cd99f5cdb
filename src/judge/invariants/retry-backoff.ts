import type { RetryDelayPolicy } from '../../port/adapter.js';
import type { Transition } from '../../port/snapshot.js';
import { defineInvariant, eventLabel, type Findings, historyByJob, isClaim, timeOf } from './support.js';

/*
 * A failed job waits before it runs again, as long as the queue's declared
 * policy says (an exponential delay from a base, capped, plus jitter), and
 * jobs that failed together do not come back together. A queue that retries
 * at once hammers the service that just failed; one without jitter sends every
 * job that failed in one outage back in one wave.
 *
 * Judged on the releases to retry after a failed attempt, which the queue
 * records with the delay it chose (the evidence kind `retry-policy`). A lease
 * taken back after a crash carries no delay: the lease was its wait, and it is
 * not judged here. From the history:
 *   - the delay lies within the policy for that attempt: at least
 *     min(base * 2^(attempt-1), cap), at most that plus the jitter (exact:
 *     the failure and its delay are one write);
 *   - the job's next claim comes no earlier than that delay after the
 *     failure, give or take the skew margin (the claim may be another
 *     process's clock);
 *   - three or more jobs that failed at one attempt within LOCKSTEP_WINDOW_MS
 *     of each other were not all given the same delay, when the policy's
 *     jitter is at least MIN_JITTER_FOR_LOCKSTEP_MS. With a uniform jitter of
 *     J ms, a sound queue gives k jobs one delay with chance (J+1)^-(k-1):
 *     at most 1 in 10,000 for three jobs and J ≥ 100.
 */

/** Failures this close together count as one wave. */
export const LOCKSTEP_WINDOW_MS = 1_000;
/** Below this jitter, equal delays are too likely by chance to call lockstep. */
export const MIN_JITTER_FOR_LOCKSTEP_MS = 100;
/** A wave this large, all given one delay, is lockstep. */
export const LOCKSTEP_MIN_JOBS = 3;

/** The policy's delay range before the attempt after `attempt`. */
export function allowedDelay(policy: RetryDelayPolicy, attempt: number): { min: number; max: number } {
  const min = Math.min(policy.baseMs * 2 ** Math.max(attempt - 1, 0), policy.capMs);
  return { min, max: min + policy.jitterMs };
}

/** A release to retry after a failed attempt, with the delay the queue chose. */
interface FailureRelease {
  jobId: string;
  event: Transition & { retryDelayMs: number };
  /** The job's next claim after it, if any. */
  nextClaim: Transition | undefined;
}

/** The releases to retry that record a delay, each with the claim that followed it. */
function failureReleases(history: readonly Transition[]): FailureRelease[] {
  const releases: FailureRelease[] = [];
  for (const event of history) {
    if (event.kind !== 'transition' || event.to !== 'retry' || event.retryDelayMs === undefined) continue;
    const nextClaim = history.find((later) => later.seq > event.seq && isClaim(later));
    releases.push({ jobId: event.jobId, event: event as FailureRelease['event'], nextClaim });
  }
  return releases;
}

function checkDelays(found: Findings, release: FailureRelease, policy: RetryDelayPolicy, skewMarginMs: number): void {
  const { event, nextClaim } = release;
  const { min, max } = allowedDelay(policy, event.attempt);
  const label = `job ${release.jobId}`;
  const chosen = event.retryDelayMs;
  if (chosen < min) {
    found.breach(
      `${label}: ${eventLabel(event)} set a retry delay of ${chosen} ms; after attempt ${event.attempt} the policy waits at least ${min} ms`,
    );
  }
  if (chosen > max) {
    found.breach(
      `${label}: ${eventLabel(event)} set a retry delay of ${chosen} ms; after attempt ${event.attempt} the policy waits at most ${max} ms`,
    );
  }
  if (nextClaim?.from !== 'retry') return;
  const failedAt = timeOf(event.at);
  const claimedAt = timeOf(nextClaim.at);
  if (failedAt === undefined || claimedAt === undefined) return;
  // Where the queue says when the retry falls due, that is the time; else the delay counts from the failure's record.
  const dueAt = event.retryDueAt === undefined ? undefined : timeOf(event.retryDueAt);
  const due = dueAt ?? failedAt + chosen;
  if (claimedAt < due - skewMarginMs) {
    const when = dueAt === undefined ? `after ${chosen} ms` : `at ${event.retryDueAt} (${due - failedAt} ms after the failure's record)`;
    found.breach(
      `${label}: claimed again ${claimedAt - failedAt} ms after its failure (${eventLabel(nextClaim)} after ${eventLabel(event)}); ` +
        `its retry was due ${when} (skew margin ${skewMarginMs} ms)`,
    );
  }
}

/** Waves of failures at one attempt, each given one delay for every job in it. */
function checkLockstep(found: Findings, releases: readonly FailureRelease[], policy: RetryDelayPolicy): void {
  const timed = releases.filter((release) => timeOf(release.event.at) !== undefined).sort((a, b) => timeOf(a.event.at)! - timeOf(b.event.at)!);
  const byAttempt = new Map<number, FailureRelease[]>();
  for (const release of timed) byAttempt.set(release.event.attempt, [...(byAttempt.get(release.event.attempt) ?? []), release]);
  for (const [attempt, group] of byAttempt) {
    let start = 0;
    while (start < group.length) {
      const first = timeOf(group[start]!.event.at)!;
      let end = start;
      while (end + 1 < group.length && timeOf(group[end + 1]!.event.at)! - first <= LOCKSTEP_WINDOW_MS) end++;
      const wave = group.slice(start, end + 1);
      const delays = new Set(wave.map((release) => release.event.retryDelayMs));
      if (wave.length >= LOCKSTEP_MIN_JOBS && delays.size === 1) {
        found.breach(
          `${wave.length} jobs (${wave.map((release) => release.jobId).join(', ')}) failed attempt ${attempt} within ` +
            `${timeOf(wave[wave.length - 1]!.event.at)! - first} ms and were all set to retry after exactly ${[...delays][0]} ms: ` +
            `they retry in lockstep (the policy's jitter is 0–${policy.jitterMs} ms)`,
        );
      }
      start = end + 1;
    }
  }
}

/** After a failed attempt, a job waits as its queue's retry policy says before the next, and failed jobs do not retry in lockstep. */
export const retryBackoff = defineInvariant({
  id: 'retry-backoff',
  statement: "after a failed attempt a job waits as the queue's retry policy says before its next, and failed jobs do not retry in lockstep",
  needs: ['history', 'retry-policy'],
  judge: (evidence, found) => {
    const policy = evidence.retryPolicy;
    const releases = [...historyByJob(evidence).values()].flatMap(failureReleases);
    found.judged(releases.length);
    for (const release of releases) checkDelays(found, release, policy, evidence.skewMarginMs);
    if (policy.jitterMs >= MIN_JITTER_FOR_LOCKSTEP_MS) checkLockstep(found, releases, policy);
    if (releases.length === 0) found.note('no job was released to retry after a failed attempt');
    if (releases.length > 0 && policy.jitterMs < MIN_JITTER_FOR_LOCKSTEP_MS) {
      found.note(`lockstep not judged: the policy's jitter (${policy.jitterMs} ms) is below ${MIN_JITTER_FOR_LOCKSTEP_MS} ms`);
    }
  },
});
