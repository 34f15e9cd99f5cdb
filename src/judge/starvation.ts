import type { JobReport } from '../report/schema.js';
import type { Evidence, StarvedSpan, Verdict } from './evidence.js';

/*
 * When a busy machine, not the queue, explains what went wrong. A correct
 * queue keeps its safety promises under any timing, so a safety breach is
 * never explained here (the one exception, a stale call a world without
 * fencing applied, which no queue can refuse for it, is in
 * ./starved-stale-calls.ts). What a starved machine can honestly take away is
 * liveness within a deadline and the exact path a job takes, and each of
 * those is explained only by a span that accounts for it:
 *
 * - A job that took another path than expected: its history shows a holder
 *   losing its lease (the next change to the job was another's) while that
 *   holder, or the harness it waits on, was not run for at least half the
 *   lease in all during its attempt (a claim's and a renewal's report, and
 *   every fault point, are round trips to the harness that block the holder
 *   until it answers); or
 *   its checkpoints show a call to the world with no answer (an unknown
 *   outcome) while the caller or the world was not run for half the call
 *   timeout before it. Either is what a slow machine does to a sound queue.
 * - A fault that never fired: the worker it was aimed at was starved (a slow
 *   start lets another worker claim first), or a job took another path for
 *   starvation (the point was never reached), even one that then ended as
 *   expected (another holder finished it), or the drill ran out of time for
 *   starvation (below).
 * - A liveness breach (a job unfinished when the drill stopped before rest):
 *   a fifth or more of the time it ran out in (the watchdog's last window, or
 *   everything since the producers were let go) some process was starved, and
 *   no unfinished job had fallen due with more unstarved time left than a
 *   sound queue needs to take it (ALLOWANCE_MS past its skew margin). A drill
 *   held up by a fault's own pause, with the machine running, stays a failure. A job the queue lost (its
 *   key has no job), or one left due while the machine ran the queue's
 *   processes, stays a failure.
 *
 * Everything is explained or nothing is: one finding no span explains keeps
 * the scenario a failure (or vacuous), with the spans still in its report.
 */

/** How much unstarved time past its due time (and the skew margin) a sound queue may need to take a job: a few polls and a sweep, on a loaded machine. */
export const ALLOWANCE_MS = 1_000;

/** How much of the time a drill ran out in must have been starved (some process not run) to explain its running out. */
export const STARVED_SHARE = 0.2;

/** How long the worker a fault is aimed at must have been held back for the fault's not firing to be the machine's doing. */
const AIMED_MS = 200;

/** What the judge found that starvation might explain. */
export interface Findings {
  /** The liveness invariants that broke. */
  liveness: readonly Verdict[];
  /** The jobs that did not end as expected. */
  wrongJobs: ReadonlyArray<Pick<JobReport, 'id' | 'key' | 'expected' | 'actual'>>;
  /** Each armed fault that never fired: its line, and the worker it was aimed at (if any). */
  unfired: ReadonlyArray<{ line: string; worker?: string | undefined }>;
}

const ms = (at: string): number => Date.parse(at);
/** A job that has ended: done, or in review (with whatever outcome the saga gave it). */
const FINAL = new Set(['done', 'review', 'compensated', 'compensation_failed', 'awaiting_approval']);
const clock = (at: string): string => at.slice(11, 23);

/** A span as a person reads it. */
export function describeSpan(span: StarvedSpan): string {
  return span.cause === 'start-up'
    ? `${span.process} was slow to start: ${span.ms} ms past a normal start, until ${clock(span.to)}`
    : `${span.process} was not run for ${span.ms} ms, from ${clock(span.from)} to ${clock(span.to)}`;
}

/** The total of spans clipped to [from, to], where they overlap counted once. */
export function unionMs(spans: readonly StarvedSpan[], from: number, to: number): number {
  const clipped = spans
    .map((s) => [Math.max(from, ms(s.from)), Math.min(to, ms(s.to))] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** Whether a span belongs to the process named `who` (a worker id: any incarnation; a world: the host or its own process). */
export function spanOf(span: StarvedSpan, who: string): boolean {
  return span.process === who || span.process.startsWith(`${who}#`);
}

/** The longest of `spans` that overlaps [from, to] by at least `enoughMs`, or null. */
export function longestWithin(spans: readonly StarvedSpan[], from: number, to: number, enoughMs: number): StarvedSpan | null {
  const overlapping = spans
    .map((span) => ({ span, overlap: Math.min(to, ms(span.to)) - Math.max(from, ms(span.from)) }))
    .filter((o) => o.overlap >= enoughMs)
    .sort((a, b) => b.overlap - a.overlap);
  return overlapping[0]?.span ?? null;
}

/**
 * Why a job's path was the machine's doing, from the queue's history and the
 * saga's checkpoints: a holder lost its lease (the next change to the job was
 * someone else's) while it was not run for `enoughMs` or more of its attempt;
 * or a call to the world timed out (its outcome unknown) while the caller or
 * the world was not run for half the call timeout before it. Null when neither.
 */
function jobSpan(evidence: Evidence, jobId: string, spans: readonly StarvedSpan[], enoughMs: number): { span: StarvedSpan; what: string } | null {
  const changes = evidence.events.filter((e) => e.jobId === jobId && e.kind === 'transition').sort((a, b) => a.seq - b.seq);
  for (const [index, claim] of changes.entries()) {
    if (claim.to !== 'running' || claim.worker === null) continue;
    const next = changes[index + 1];
    if (next === undefined || next.worker === claim.worker) continue;
    const holder = claim.worker;
    const [from, to] = [ms(claim.at), ms(next.at)];
    const held = spans.filter((s) => spanOf(s, holder) || s.process === 'harness');
    const starvedMs = unionMs(held, from, to);
    const span = starvedMs >= enoughMs ? longestWithin(held, from, to, 1) : null;
    if (span) {
      const what = `${holder} lost its lease (attempt ${claim.attempt}) to ${next.worker ?? next.actor} at ${clock(next.at)}`;
      // One span that accounts for it alone is said as it was; several together are counted.
      const alone = unionMs([span], from, to);
      return { span, what: starvedMs > alone ? `${what}, after ${starvedMs} ms of its attempt starved (${holder} or the harness)` : what };
    }
  }
  const callTimeout = evidence.callTimeoutMs ?? evidence.leaseMs;
  for (const row of evidence.txLog) {
    if (row.job_id !== jobId || (row.status !== 'unknown' && row.error_kind !== 'unknown_outcome')) continue;
    const at = ms(row.at);
    const span = longestWithin(
      spans.filter((s) => spanOf(s, row.worker) || spanOf(s, 'world') || spanOf(s, 'world-host')),
      at - callTimeout - 100,
      at,
      Math.floor(callTimeout / 2),
    );
    if (span) return { span, what: `${row.worker}'s call of step ${row.step_id} had no answer (${row.status}) at ${clock(row.at)}` };
  }
  return null;
}

/** The first job whose path starvation changed (a lease or an answer lost to it), or null. */
function firstDetour(evidence: Evidence, spans: readonly StarvedSpan[], enoughMs: number): { jobId: string; span: StarvedSpan; what: string } | null {
  for (const job of evidence.jobs) {
    const found = jobSpan(evidence, job.id, spans, enoughMs);
    if (found) return { jobId: job.id, ...found };
  }
  return null;
}

/** Why each unfinished job of a drill that stopped before rest is not the queue's fault; null when one is. */
function unfinishedExplained(evidence: Evidence, spans: readonly StarvedSpan[], end: number): string | null {
  const queueSpans = spans.filter((s) => s.process !== 'harness');
  const poll = Math.max(evidence.pollMs ?? 0, evidence.tickMs ?? 0);
  const allowance = evidence.skewMarginMs + Math.max(ALLOWANCE_MS, 4 * poll);
  const keys = new Set(evidence.jobs.map((j) => j.key));
  const lost = evidence.accepted.find((a) => a.createdCount > 0 && !keys.has(a.key));
  if (lost) return null;
  for (const job of evidence.jobs) {
    if (job.status === 'done' || job.status === 'review') continue;
    const due =
      job.status === 'running' || job.status === 'compensating'
        ? job.leaseUntil === null
          ? null
          : ms(job.leaseUntil) + evidence.skewMarginMs
        : job.nextRunAt === null
          ? null
          : ms(job.nextRunAt);
    if (due === null || due >= end) continue;
    const unstarved = end - due - unionMs(queueSpans, due, end);
    if (unstarved > allowance) return null;
  }
  return `every unfinished job was due less than ${allowance} ms of unstarved time before the drill stopped`;
}

/**
 * The lines that explain every finding by starvation, or null when one finding
 * has no such explanation (or there is nothing to explain, or nothing starved).
 */
export function explainByStarvation(evidence: Evidence, findings: Findings): string[] | null {
  const spans = evidence.starved ?? [];
  if (spans.length === 0) return null;
  if (findings.liveness.length === 0 && findings.wrongJobs.length === 0 && findings.unfired.length === 0) return null;
  const lines: string[] = [];
  const end = evidence.endedAt ? ms(evidence.endedAt) : Math.max(...spans.map((s) => ms(s.to)));
  const released = evidence.releasedAt ? ms(evidence.releasedAt) : Math.min(...spans.map((s) => ms(s.from)));
  const enough = Math.floor(evidence.leaseMs / 2);

  // A drill that stopped before rest, on a starved machine, with no job left due while the queue's processes ran.
  let outOfTime: string | null = null;
  if (evidence.atRest === false && evidence.ending !== 'at-rest') {
    // The time the drill ran out in: the watchdog's last window, or everything since the producers were let go.
    const from =
      evidence.ending === 'no-progress' && evidence.noProgressMs !== undefined ? Math.max(released, end - evidence.noProgressMs) : released;
    const during = spans.filter((s) => ms(s.to) > from && ms(s.from) < end);
    const starvedEnough = unionMs(during, from, end) >= STARVED_SHARE * (end - from);
    const why = starvedEnough ? unfinishedExplained(evidence, spans, end) : null;
    if (why !== null) {
      const worst = [...during].sort((a, b) => b.ms - a.ms)[0]!;
      outOfTime =
        `the drill stopped before rest (${evidence.ending ?? 'out of time'}) on a starved machine: ${during.length} starved span(s) ` +
        `in its last ${end - from} ms, ${unionMs(during, from, end)} ms of them starved, the worst: ${describeSpan(worst)}; ${why}`;
    }
  }
  if (findings.liveness.length > 0 && outOfTime === null) return null;
  for (const verdict of findings.liveness) lines.push(`${verdict.id}: ${outOfTime}`);

  let pathsExplained = 0;
  for (const job of findings.wrongJobs) {
    const found = job.id === null ? null : jobSpan(evidence, job.id, spans, enough);
    if (found !== null) {
      pathsExplained++;
      const ended =
        job.actual.status === job.expected.status
          ? `ended ${job.actual.status} for another reason than expected (${job.expected.reason ?? 'any'})`
          : `ended ${job.actual.status}, not ${job.expected.status}`;
      lines.push(`job ${job.id} ${ended}: ${found.what}; ${describeSpan(found.span)}`);
    } else if (outOfTime !== null && job.id !== null && !FINAL.has(job.actual.status)) {
      lines.push(`job ${job.id} was still ${job.actual.status} when the drill stopped (above)`);
    } else {
      return null;
    }
  }

  // A job that lost its lease (or an answer) to starvation, whether or not it then ended as expected: its
  // remaining points were reached by another path, or never.
  const detour = findings.unfired.length === 0 ? null : firstDetour(evidence, spans, enough);
  for (const fault of findings.unfired) {
    // The worker a fault waits for, held back long enough for another to claim first (a slow start, most often).
    const aimed =
      fault.worker === undefined
        ? undefined
        : spans.filter((s) => spanOf(s, fault.worker!) && s.ms >= Math.min(enough, AIMED_MS)).sort((a, b) => b.ms - a.ms)[0];
    if (aimed) lines.push(`${fault.line}: ${describeSpan(aimed)}`);
    else if (pathsExplained > 0) lines.push(`${fault.line}: its job took another path for starvation (above)`);
    else if (detour !== null) lines.push(`${fault.line}: job ${detour.jobId} took another path: ${detour.what}; ${describeSpan(detour.span)}`);
    else if (outOfTime !== null) lines.push(`${fault.line}: ${outOfTime}`);
    else return null;
  }
  return lines;
}

/** How much the machine starved one drill: its spans, their total, the worst. */
export function starvationSummary(spans: readonly StarvedSpan[]): { spans: StarvedSpan[]; totalMs: number; worst: StarvedSpan | null } {
  return {
    spans: [...spans],
    totalMs: spans.reduce((total, s) => total + s.ms, 0),
    worst: spans.reduce<StarvedSpan | null>((worst, s) => (worst === null || s.ms > worst.ms ? s : worst), null),
  };
}
