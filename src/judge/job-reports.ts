import { inOneTimeBase, type TimeBase, timeBase, writerOf } from '../kernel/time-base.js';
import { approveCommandFor, type QueueAddress } from '../port/queue-address.js';
import type { JobSnapshot } from '../port/snapshot.js';
import type { JobEvent, JobReport } from '../report/schema.js';
import type { ResolvedJob } from '../scenarios/resolve.js';
import { type DuplicatedEffect, duplicatesOfJob } from './duplicated-effects.js';
import type { Evidence } from './evidence.js';
import { expectationMismatch } from './invariants/index.js';

/** What a job ended as, in the terms a scenario expects (a compensated saga is its own outcome). */
export function outcomeOf(job: JobSnapshot): string {
  if (job.status !== 'review') return job.status;
  return job.outcome ?? 'review';
}

/**
 * A job's life as data, in time order: in the drill's one time base (each
 * writer's measured clock offset taken off its stamps, each source in its own
 * order); ties keep the order of the sources: history, checkpoints, effects, incidents.
 */
function eventsOf(job: JobSnapshot, states: Evidence['events'], evidence: Evidence, base: TimeBase): JobEvent[] {
  const placed = inOneTimeBase<JobEvent>(
    [
      evidence.effects
        .filter((f) => f.job === job.id)
        .map((f) => ({
          at: f.at,
          tie: 2,
          item: {
            kind: 'effect' as const,
            at: f.at,
            seq: f.seq,
            step: f.step,
            tool: f.tool,
            key: f.key,
            epoch: f.epoch,
            worker: f.worker,
            attempt: f.attempt,
            ref: f.externalRef,
            compensation: f.compensates !== null,
          },
        })),
      evidence.txLog
        .filter((t) => t.job_id === job.id)
        .map((t) => ({
          at: t.at,
          writer: t.worker,
          tie: 1,
          item: {
            kind: 'checkpoint' as const,
            at: t.at,
            id: t.id,
            step: t.step_id,
            action: t.action,
            status: t.status,
            attempt: t.attempt,
            epoch: t.epoch,
            worker: t.worker,
            ref: t.external_reference,
            detail: t.detail,
          },
        })),
      states.map((e) => ({ at: e.at, writer: writerOf(e), tie: 0, item: transitionEvent(e) })),
      evidence.incidents
        .filter((i) => i.job_id === job.id)
        .map((i) => ({
          at: i.at,
          tie: 3,
          item: { kind: 'incident' as const, at: i.at, id: i.id, step: i.step_id, status: i.status, error: i.error },
        })),
    ],
    base,
  );
  return placed.map(({ item, at, correction }) =>
    correction === null || item.kind === 'effect' ? item : { ...item, placed: { at, by: correction } },
  );
}

function transitionEvent(e: Evidence['events'][number]): JobEvent {
  return {
    kind: e.kind,
    at: e.at,
    seq: e.seq,
    from: e.from,
    to: e.to,
    attempt: e.attempt,
    epoch: e.epoch,
    worker: e.worker,
    actor: e.actor,
    reason: e.reason,
  };
}

/** One planned job's report: found in the store by its key (or missing), how it ended against what was expected, its duplicates and its history. */
export function jobReport(
  planned: Pick<ResolvedJob, 'key' | 'expect' | 'maxAttempts'>,
  evidence: Evidence,
  duplicates: readonly DuplicatedEffect[],
  address: QueueAddress | null = null,
): JobReport {
  const job = evidence.jobs.find((j) => j.key === planned.key);
  const states = job ? evidence.events.filter((e) => e.jobId === job.id) : [];
  // Located: the history holds its creation, and its last state change is where the store says it is.
  const located = job !== undefined && states[0]?.from === null && states.filter((e) => e.kind === 'transition').at(-1)?.to === job.status;
  const actual = job ? outcomeOf(job) : 'missing';
  const base = timeBase(evidence.queueClock, evidence.clocks);
  const awaitsApproval = address !== null && job?.status === 'review' && job.outcome === 'awaiting_approval';
  return {
    id: job?.id ?? null,
    key: planned.key,
    expected: planned.expect,
    actual: { status: actual, reason: job?.reviewReason ?? null },
    // The same judgement as the expectation lines, so the two never disagree.
    matches: expectationMismatch(job, planned.key, planned.expect) === null,
    attempts: job?.attempts ?? 0,
    maxAttempts: job?.maxAttempts ?? planned.maxAttempts,
    duplicatedEffects: job ? duplicatesOfJob(duplicates, job.key) : [],
    located,
    approve: awaitsApproval ? approveCommandFor(address, job.id) : null,
    events: job ? eventsOf(job, states, evidence, base) : [],
  };
}

/** Every planned job's report, in the scenario's order. */
export function jobReports(
  planned: ReadonlyArray<Pick<ResolvedJob, 'key' | 'expect' | 'maxAttempts'>>,
  evidence: Evidence,
  duplicates: readonly DuplicatedEffect[],
  address: QueueAddress | null = null,
): JobReport[] {
  return planned.map((job) => jobReport(job, evidence, duplicates, address));
}
