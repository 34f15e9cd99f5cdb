import type { Redis } from 'ioredis';
import { utc } from '../../kernel/clock.js';
import type { JobOutcome, JobStatus } from '../../kernel/vocabulary.js';
import type { JobSnapshot } from '../../port/snapshot.js';
import { parseJobData, type QueueKeys } from './job-data.js';

/** BullMQ's state of a job: which list or set of the queue holds its id. */
type BullState = 'wait' | 'active' | 'delayed' | 'completed' | 'failed';

/** Every job id of the queue, with the list or set that holds it (and a delayed job's due time). */
async function jobStates(client: Redis, keys: QueueKeys): Promise<Map<string, { state: BullState; dueAt: number | null }>> {
  const [wait, paused, prioritized, active, delayed, completed, failed] = (await client
    .multi()
    .lrange(keys.wait, 0, -1)
    .lrange(keys.paused, 0, -1)
    .zrange(keys.prioritized, 0, -1)
    .lrange(keys.active, 0, -1)
    .zrange(keys.delayed, 0, -1, 'WITHSCORES')
    .zrange(keys.completed, 0, -1)
    .zrange(keys.failed, 0, -1)
    .exec()) as [Error | null, string[]][];
  const states = new Map<string, { state: BullState; dueAt: number | null }>();
  for (const id of [...wait![1], ...paused![1], ...prioritized![1]]) states.set(id, { state: 'wait', dueAt: null });
  for (const id of active![1]) states.set(id, { state: 'active', dueAt: null });
  const d = delayed![1];
  // A delayed job's score is its due time × 4096 plus a counter (BullMQ 5's addDelayedJob).
  for (let i = 0; i < d.length; i += 2) states.set(d[i]!, { state: 'delayed', dueAt: Math.floor(Number(d[i + 1]) / 4096) });
  for (const id of completed![1]) states.set(id, { state: 'completed', dueAt: null });
  for (const id of failed![1]) states.set(id, { state: 'failed', dueAt: null });
  return states;
}

/** BullMQ's state in the drill's words: a job started before and waiting again (stalled, or after its backoff) is a retry. */
export function statusOf(state: BullState, started: number): JobStatus {
  switch (state) {
    case 'active':
      return 'running';
    case 'completed':
      return 'done';
    case 'failed':
      return 'review';
    case 'delayed':
      return 'retry';
    default:
      return started > 0 ? 'retry' : 'pending';
  }
}

function num(value: string | undefined): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/** The digest a done job's return value holds (the worker completes with the digest as its value, JSON-encoded). */
function digestOf(returnvalue: string | undefined): string | null {
  if (returnvalue === undefined) return null;
  try {
    const value = JSON.parse(returnvalue) as unknown;
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Every job of the queue as Redis holds it now: its hash, its state, its lock key and that key's time to live. */
export async function readJobs(client: Redis, keys: QueueKeys): Promise<JobSnapshot[]> {
  const states = await jobStates(client, keys);
  const ids = [...states.keys()];
  if (ids.length === 0) return [];
  const read = client.multi();
  for (const id of ids) read.hgetall(keys.job(id)).get(keys.lock(id)).pttl(keys.lock(id));
  read.hgetall(keys.outcomes);
  const replies = (await read.exec()) ?? [];
  const outcomes = (replies[replies.length - 1]?.[1] ?? {}) as Record<string, string>;
  const now = Date.now();
  return ids.map((id, i) => {
    const hash = (replies[i * 3]?.[1] ?? {}) as Record<string, string>;
    const lock = replies[i * 3 + 1]?.[1] as string | null;
    const ttl = replies[i * 3 + 2]?.[1] as number;
    return toSnapshot(id, states.get(id)!, hash, { lock, ttl, now, outcome: outcomes[id] });
  });
}

function toSnapshot(
  id: string,
  where: { state: BullState; dueAt: number | null },
  hash: Record<string, string>,
  extra: { lock: string | null; ttl: number; now: number; outcome: string | undefined },
): JobSnapshot {
  const data = parseJobData(hash.data);
  const started = num(hash.ats);
  const status = statusOf(where.state, started);
  const held = status === 'running' && extra.lock !== null;
  const createdAt = num(hash.timestamp);
  const updatedAt = Math.max(createdAt, num(hash.processedOn), num(hash.finishedOn));
  let outcome: JobOutcome | null = null;
  if (status === 'done') outcome = 'done';
  else if (status === 'review') outcome = extra.outcome === 'awaiting_approval' ? 'awaiting_approval' : 'review';
  const opts = safeJson(hash.opts) as { attempts?: number };
  return {
    id,
    key: data.key,
    action: data.action,
    payload: data.payload,
    status,
    outcome,
    // Every start BullMQ made, the one only to fail the job over its stall limit too: the history shows each as a claim (history.ts).
    attempts: started,
    maxAttempts: opts.attempts ?? data.maxAttempts,
    // `pb` (processedBy) is the Worker's name, which the adapter sets to the drill's worker id; shown only while its lock lives.
    holder: held ? (hash.pb ?? null) : null,
    leaseUntil: held && extra.ttl > 0 ? utc(extra.now + extra.ttl) : null,
    epoch: started,
    nextRunAt: where.dueAt === null ? null : utc(where.dueAt),
    lastError: hash.failedReason && hash.failedReason !== '' ? hash.failedReason : null,
    reviewReason: status === 'review' ? (hash.failedReason ?? null) : null,
    resultDigest: status === 'done' ? digestOf(hash.returnvalue) : null,
    createdAt: utc(createdAt),
    updatedAt: utc(updatedAt),
  };
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '{}');
  } catch {
    return {};
  }
}
