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

/** The history as a timeline a person reads, every source merged in time order. */
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
  const lines: Array<[string, number, string]> = [
    ...history.effects.map((f): [string, number, string] => [
      f.at,
      0,
      `effect  ${f.step.padEnd(12)} ${f.tool.padEnd(20)} ref ${f.externalRef} #${f.attempt} ${f.worker} pid ` +
        `${f.pid}${f.epoch === null ? '' : ` epoch ${f.epoch}`}${f.compensates ? ` (undoes ${f.compensates})` : ''}`,
    ]),
    ...history.states.map((e): [string, number, string] => [
      e.at,
      2,
      `state   ${(e.from ?? '(new)').padEnd(12)} -> ${e.to.padEnd(12)} ` +
        `${e.kind === 'refused' ? 'REFUSED ' : ''}#${e.attempt} ${e.worker ?? e.actor}: ${e.reason}`,
    ]),
    ...history.steps.map((s): [string, number, string] => [
      s.at,
      1,
      `step    ${s.step_id.padEnd(12)} ${s.action.padEnd(10)} ${s.status.padEnd(12)} #${s.attempt} ` +
        `${s.worker}${s.external_reference ? ` ref ${s.external_reference}` : ''}${s.detail ? `: ${s.detail}` : ''}`,
    ]),
    ...history.incidents.map((i): [string, number, string] => [i.at, 3, `INCIDENT ${i.step_id}: ${i.status}: ${i.error}`]),
  ];
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  return [...head, ...lines.map(([at, , text]) => `${at}  ${text}`)].join('\n');
}
