import type { Redis } from 'ioredis';
import { utc } from '../../kernel/clock.js';
import type { Actor, JobStatus } from '../../kernel/vocabulary.js';
import type { Transition } from '../../port/snapshot.js';
import type { QueueKeys } from './job-data.js';

/**
 * The failures BullMQ 5.53.2+ makes lazily: the stalled checker marks the job
 * (`defa`) and moves it to wait (or a Worker's maxStartedAttempts, unset here,
 * is passed), and the next worker to start it fails it before its processor
 * runs (Worker.getUnrecoverableErrorMessage).
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

/** Where a job stands while its history is rebuilt: its state, and how often BullMQ started it (its epoch, and its attempts). */
interface JobTrack {
  status: JobStatus | null;
  started: number;
}

type Step = { to: JobStatus; actor: Actor; reason: string };

/*
 * BullMQ's stall limit (5.81: moveStalledJobsToWait.lua, moveToActive.lua,
 * Worker.processJob and getNextJob) is the queue's own machinery, the
 * drill's coordinator, not the job's holder: the stalled checker finds a lock
 * run out, takes the job back to wait (`waiting` prev active, then `stalled`,
 * in one script) and, past maxStalledCount, marks it (`defa`); the next
 * worker to start it really starts it (`active`: the lock taken, `ats` + 1)
 * and fails it at once with that reason (`failed`), running no processor.
 * So: running→retry by the coordinator, a claim like any other, and
 * running→review by the coordinator.
 */

/**
 * What one stream entry means for its job, or null when it changes nothing
 * the drill can see (added, a promotion from delayed, stalled, duplicated,
 * drained). `next` is the job's own next entry: other jobs' may come between.
 */
function stepOf(entry: StreamEntry, next: StreamEntry | undefined, track: JobTrack): Step | null {
  const f = entry.fields;
  switch (f.event) {
    case 'waiting':
      if (f.prev === undefined) return track.status === null ? { to: 'pending', actor: 'producer', reason: 'added' } : null;
      if (f.prev === 'failed') return { to: 'pending', actor: 'human', reason: 'Job.retry(): requeued from the failed set' };
      if (f.prev === 'active') {
        // moveStalledJobsToWait emits `waiting` then `stalled`; a retry without a delay emits `waiting` alone.
        if (next?.fields.event === 'stalled')
          return { to: 'retry', actor: 'coordinator', reason: 'stalled: lock expired, taken back by the stalled checker' };
        return { to: 'retry', actor: 'worker', reason: 'retry' };
      }
      return null;
    case 'active':
      if (next?.fields.event === 'failed' && isDeferredFailure(next.fields.failedReason)) {
        return { to: 'running', actor: 'worker', reason: `started, to be failed at once: ${next.fields.failedReason} (no processor runs)` };
      }
      return { to: 'running', actor: 'worker', reason: 'claimed' };
    case 'delayed':
      // The due time is by the worker's clock and the entry's time by Redis's: their difference is not the delay chosen (capabilities).
      return track.status === 'running' ? { to: 'retry', actor: 'worker', reason: `failed, retry due at ${f.delay ?? '?'} (worker clock)` } : null;
    case 'completed':
      return { to: 'done', actor: 'worker', reason: 'completed' };
    case 'failed':
      if (isDeferredFailure(f.failedReason))
        return { to: 'review', actor: 'coordinator', reason: `${f.failedReason} (failed by BullMQ at its start)` };
      return { to: 'review', actor: 'worker', reason: f.failedReason ?? 'failed' };
    default:
      return null;
  }
}

/** For each entry, the next entry of the same job. */
function nextOfSameJob(entries: readonly StreamEntry[]): Array<StreamEntry | undefined> {
  const next = new Array<StreamEntry | undefined>(entries.length);
  const later = new Map<string, StreamEntry>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    const jobId = entry.fields.jobId;
    if (jobId === undefined) continue;
    next[i] = later.get(jobId);
    later.set(jobId, entry);
  }
  return next;
}

/**
 * The history of every job, rebuilt from BullMQ's own events stream: every
 * move BullMQ makes writes an entry there, in order, with the time Redis gave
 * it. The stream names no worker (worker: null) and is trimmed at about
 * 10,000 entries (far more than a drill writes). Every start is a claim, the
 * stall limit's too (it takes the lock, and `ats` counts it): the attempt and
 * the epoch of each entry are the starts so far, as the job hash's `ats`.
 */
export async function readHistory(client: Redis, keys: QueueKeys): Promise<Transition[]> {
  const entries = await readStream(client, keys.events);
  const nexts = nextOfSameJob(entries);
  const tracks = new Map<string, JobTrack>();
  const history: Transition[] = [];
  entries.forEach((entry, i) => {
    const jobId = entry.fields.jobId;
    if (jobId === undefined) return;
    const track = tracks.get(jobId) ?? { status: null, started: 0 };
    tracks.set(jobId, track);
    if (entry.fields.event === 'active') track.started++;
    const step = stepOf(entry, nexts[i], track);
    if (step === null) return;
    history.push({
      seq: history.length + 1,
      jobId,
      kind: 'transition',
      from: track.status,
      to: step.to,
      attempt: track.started,
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
