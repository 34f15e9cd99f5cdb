import type { Redis } from 'ioredis';
import { utc } from '../../kernel/clock.js';
import type { Actor, JobStatus } from '../../kernel/vocabulary.js';
import type { Transition } from '../../port/snapshot.js';
import type { QueueKeys } from './job-data.js';

/**
 * The failures BullMQ 5.53.2+ makes lazily: the stalled checker marks the job
 * (`defa`) and moves it to wait, and the next worker to start it fails it
 * before its processor runs (Worker.getUnrecoverableErrorMessage).
 */
export function isDeferredFailure(reason: string | undefined): boolean {
  return reason === 'job stalled more than allowable limit' || reason === 'job started more than allowable limit';
}

/** One entry of BullMQ's events stream: its id (`<ms>-<n>`) and its fields. */
interface StreamEntry {
  at: number;
  fields: Record<string, string>;
}

async function readStream(client: Redis, key: string): Promise<StreamEntry[]> {
  const entries = await client.xrange(key, '-', '+');
  return entries.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { at: Number(id.split('-')[0]), fields };
  });
}

/** Where a job stands while its history is rebuilt: its state, how often BullMQ started it (its epoch), and how many of those starts ran. */
interface JobTrack {
  status: JobStatus | null;
  started: number;
  attempts: number;
}

type Step = { to: JobStatus; actor: Actor; reason: string };

/**
 * What one stream entry means for its job, or null when it changes nothing
 * the drill can see (added, a promotion from delayed, duplicated, drained).
 */
function stepOf(entry: StreamEntry, next: StreamEntry | undefined, track: JobTrack): Step | null {
  const f = entry.fields;
  switch (f.event) {
    case 'waiting':
      if (f.prev === undefined) return track.status === null ? { to: 'pending', actor: 'producer', reason: 'added' } : null;
      if (f.prev === 'failed') return { to: 'pending', actor: 'human', reason: 'Job.retry(): requeued from the failed set' };
      if (f.prev === 'active') {
        // moveStalledJobsToWait emits `waiting` then `stalled`; a retry without a delay emits `waiting` alone.
        const stalled = next?.fields.event === 'stalled' && next.fields.jobId === f.jobId;
        return { to: 'retry', actor: 'worker', reason: stalled ? 'stalled: lock expired, taken back by the stalled checker' : 'retry' };
      }
      return null;
    case 'active':
      // A start BullMQ makes only to fail the job at once (its lazy stall limit) is not an attempt: no processor ran.
      if (next && next.fields.jobId === f.jobId && next.fields.event === 'failed' && isDeferredFailure(next.fields.failedReason)) return null;
      return { to: 'running', actor: 'worker', reason: 'claimed' };
    case 'delayed':
      // The due time is by the worker's clock and the entry's time by Redis's: their difference is not the delay chosen (capabilities).
      return track.status === 'running' ? { to: 'retry', actor: 'worker', reason: `failed, retry due at ${f.delay ?? '?'} (worker clock)` } : null;
    case 'completed':
      return { to: 'done', actor: 'worker', reason: 'completed' };
    case 'failed':
      return { to: 'review', actor: 'worker', reason: f.failedReason ?? 'failed' };
    case 'stalled':
      return null;
    default:
      return null;
  }
}

/**
 * The history of every job, rebuilt from BullMQ's own events stream: every
 * move BullMQ makes writes an entry there, in order, with the time Redis gave
 * it. The stream names no worker (worker: null) and is trimmed at about
 * 10,000 entries (far more than a drill writes); the epoch of each entry is
 * the number of starts so far, as the job hash's `ats` counts them.
 */
export async function readHistory(client: Redis, keys: QueueKeys): Promise<Transition[]> {
  const entries = await readStream(client, keys.events);
  const tracks = new Map<string, JobTrack>();
  const history: Transition[] = [];
  entries.forEach((entry, i) => {
    const jobId = entry.fields.jobId;
    if (jobId === undefined) return;
    const track = tracks.get(jobId) ?? { status: null, started: 0, attempts: 0 };
    tracks.set(jobId, track);
    if (entry.fields.event === 'active') track.started++;
    const step = stepOf(entry, entries[i + 1], track);
    if (step === null) return;
    if (step.to === 'running') track.attempts++;
    history.push({
      seq: history.length + 1,
      jobId,
      kind: 'transition',
      from: track.status,
      to: step.to,
      attempt: track.attempts,
      epoch: track.started,
      worker: null,
      actor: step.actor,
      reason: step.reason,
      at: utc(entry.at),
    });
    track.status = step.to;
  });
  return history;
}
