import type { Incident, SagaStore, TxEntry, TxRow } from '../../port/checkpoint.js';
import type { ChildChannel } from './child-channel.js';
import { leaseFields, MalformedMessageError } from './protocol.js';

/** A checkpoint as the protocol carries it (append_tx, release_expired, requeue_from_review). */
export function txEntryWire(entry: TxEntry): Record<string, unknown> {
  return {
    step_id: entry.stepId,
    action: entry.action,
    key: entry.key,
    status: entry.status,
    external_reference: entry.externalReference ?? null,
    compensation_status: entry.compensationStatus ?? null,
    detail: entry.detail ?? null,
    error_kind: entry.errorKind ?? null,
  };
}

function list<T>(body: Record<string, unknown>, name: string, op: string): T[] {
  if (!Array.isArray(body[name])) throw new MalformedMessageError(`the answer to ${op}.${name} must be a list`);
  return body[name] as T[];
}

/**
 * The saga's checkpoints in the child's own store (`saga_store: "in-queue"`):
 * each append is checked against the writer's lease in the child's
 * transaction, as the reference's appendTx is, so a holder that lost its
 * lease can never write one, even before anyone else has claimed the job.
 * Rows come back in the port's words already (snake_case is TxRow's own).
 */
export function childSagaStore(channel: ChildChannel): SagaStore {
  const jobField = (jobId?: string) => (jobId === undefined ? {} : { job_id: jobId });
  return {
    async logFor(writer) {
      return {
        append: async (entry) => (await channel.request('append_tx', { ...leaseFields(writer), entry: txEntryWire(entry) })).appended === true,
        rows: async () => list<TxRow>(await channel.request('read_tx', { job_id: writer.jobId }), 'rows', 'read_tx'),
        incident: async (stepId, error) => {
          await channel.request('record_incident', { job_id: writer.jobId, step_id: stepId, error });
        },
      };
    },
    rows: async (jobId) => list<TxRow>(await channel.request('read_tx', jobField(jobId)), 'rows', 'read_tx'),
    incidents: async (jobId) => list<Incident>(await channel.request('incidents', jobField(jobId)), 'incidents', 'incidents'),
  };
}
