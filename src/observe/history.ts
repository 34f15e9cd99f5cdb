import { effectLine, incidentLine, placedLine, stateLine, stepLine } from '../kernel/life-lines.js';
import { inOneTimeBase, type TimeBase, writerOf } from '../kernel/time-base.js';
import type { QueueConnection } from '../port/adapter.js';
import type { Incident, TxRow } from '../port/checkpoint.js';
import type { JobSnapshot, Transition } from '../port/snapshot.js';
import { type EffectRow, readLedger } from '../world/ledger.js';

/** One job's life from every source of evidence. */
export interface JobHistory {
  job: JobSnapshot;
  states: Transition[];
  steps: TxRow[];
  /** From the world's ledger: what really happened outside. Empty without a ledger. */
  effects: EffectRow[];
  /** The ledger the effects were read from; null when none was given, so the effects are left out (not none). Absent: read by the caller. */
  ledger?: string | null;
  incidents: Incident[];
  /**
   * How the queue's stamps are placed in one time base (a drill's measured
   * clocks: src/kernel/time-base.ts). Absent: every stamp as written.
   */
  timeBase?: TimeBase;
}

/** Rebuilds a job's life from the queue (and the world's ledger when given); undefined for an unknown id. */
export async function jobHistory(queue: QueueConnection, jobId: string, ledgerFile?: string): Promise<JobHistory | undefined> {
  const snapshot = await queue.snapshot();
  const job = snapshot.jobs.find((j) => j.id === jobId);
  if (!job) return undefined;
  return {
    job,
    states: snapshot.history.filter((e) => e.jobId === jobId),
    steps: await queue.saga.rows(jobId),
    effects: ledgerFile ? readLedger(ledgerFile).filter((effect) => effect.job === jobId) : [],
    ledger: ledgerFile ?? null,
    incidents: await queue.saga.incidents(jobId),
  };
}

/** Lines under a history's first: the command that approves the step the job waits on, and what the timeline leaves out and how to include it. */
export interface HistoryNotes {
  approve?: string;
  leftOut?: string;
}

/**
 * The history as a timeline a person reads, every source merged in time order:
 * in the drill's one time base where the history has one (each line at the
 * harness's time, and the stamp as written where a measured clock moved it).
 */
export function renderHistory(history: JobHistory, notes: HistoryNotes = {}): string {
  const { job } = history;
  const head = [
    `job ${job.id} (${job.action}) key ${job.key.slice(0, 16)}…: ` +
      `${job.status}${job.outcome && job.outcome !== job.status ? ` (${job.outcome})` : ''}, attempt ${job.attempts} of ${job.maxAttempts}`,
  ];
  if (job.reviewReason && job.status === 'review') head.push(`  review: ${job.reviewReason}`);
  if (notes.approve) head.push(`  approve: ${notes.approve}`);
  if (job.resultDigest) head.push(`  verified result ${job.resultDigest}`);
  if (notes.leftOut) head.push(`  ${notes.leftOut}`);
  // Ties in time are broken by what causes what: an effect is applied, then checkpointed, then the state moves.
  const lines = inOneTimeBase<string>(
    [
      history.effects.map((f) => ({
        at: f.at,
        tie: 0,
        item: effectLine(
          { ...f, ref: f.externalRef },
          ` pid ${f.pid}${f.epoch === null ? '' : ` epoch ${f.epoch}`}${f.compensates ? ` (undoes ${f.compensates})` : ''}`,
        ),
      })),
      history.states.map((e) => ({
        at: e.at,
        writer: writerOf(e),
        tie: 2,
        item: stateLine({ ...e, refused: e.kind === 'refused', by: e.worker ?? e.actor }),
      })),
      history.steps.map((s) => ({
        at: s.at,
        writer: s.worker,
        tie: 1,
        item: stepLine({ ...s, step: s.step_id, ref: s.external_reference }),
      })),
      history.incidents.map((i) => ({ at: i.at, tie: 3, item: incidentLine({ ...i, step: i.step_id }) })),
    ],
    history.timeBase,
  );
  return [...head, ...lines.map(({ item, at, stamp, correction }) => placedLine(at, item, correction ? { stamp, correction } : null))].join('\n');
}
