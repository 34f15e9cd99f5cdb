import { leaseFields, MalformedMessageError, toClaim, toJob, toTransition } from '../../adapters/process/protocol.js';
import type { Claim } from '../../port/delivery.js';
import type { JobSnapshot, Transition } from '../../port/snapshot.js';
import type { Session } from './session.js';
import { StepFailure } from './session.js';

/** Fails the step, blaming `about`, unless `condition` holds. */
export function expectThat(condition: boolean, about: string, why: string): void {
  if (!condition) throw new StepFailure(about, why);
}

/** Reads a wire value with `read`, a malformed one failing the step against `about`. */
export function wellFormed<T>(about: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof MalformedMessageError) throw new StepFailure(about, error.message);
    throw error;
  }
}

/** The next delivery of a session, checked field by field. */
export async function delivered(session: Session, why: string): Promise<Claim> {
  const wire = await session.nextDelivery(why);
  return wellFormed('deliver', () => toClaim(wire, 'deliver.delivery'));
}

/** Enqueues one job and returns its id. */
export async function enqueued(session: Session, key: string, maxAttempts = 3): Promise<string> {
  const body = await session.ok('enqueue', { key, action: 'check', payload: JSON.stringify({ key }), max_attempts: maxAttempts });
  expectThat(body.outcome === 'created', 'enqueue', `a new key ${key} was answered ${JSON.stringify(body.outcome)}, not "created"`);
  expectThat(typeof body.job_id === 'string', 'enqueue', 'job_id must be text');
  return body.job_id as string;
}

/** Starts the child's worker loop and returns its first delivery. */
export async function workOne(session: Session, workerId: string): Promise<Claim> {
  void session.channel.request('work', { worker_id: workerId, poll_ms: 20, max_jobs: 0, exit_when_drained: false }).catch(() => undefined);
  return delivered(session, `after work with a job ready (worker ${workerId})`);
}

/** Settles a claim; the ok answer's body, or the step fails naming settle. */
export function settle(session: Session, claim: Claim, settlement: Record<string, unknown>): Promise<Record<string, unknown>> {
  return session.ok('settle', { ...leaseFields(claim), settlement });
}

/** Every job and the history, read and checked field by field. */
export async function snapshotOf(session: Session): Promise<{ jobs: JobSnapshot[]; history: Transition[] }> {
  const body = await session.ok('snapshot', { history: true });
  expectThat(Array.isArray(body.jobs) && Array.isArray(body.history), 'snapshot', 'jobs and history must be lists');
  return wellFormed('snapshot', () => ({
    jobs: (body.jobs as unknown[]).map((j, i) => toJob(j, `snapshot.jobs[${i}]`)),
    history: (body.history as unknown[]).map((t, i) => toTransition(t, `snapshot.history[${i}]`)),
  }));
}

/** The job with `id`, or a failure naming snapshot. */
export async function jobOf(session: Session, id: string): Promise<JobSnapshot> {
  const job = (await snapshotOf(session)).jobs.find((j) => j.id === id);
  expectThat(job !== undefined, 'snapshot', `job ${id} is missing from the snapshot`);
  return job!;
}
