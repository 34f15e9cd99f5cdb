import { randomUUID } from 'node:crypto';

/**
 * What a drill job carries as BullMQ's `data`: the request, and a nonce of the
 * enqueue that wrote it, so a producer can tell its own add (created) from a
 * job that was already there under the key (deduplicated): BullMQ's add
 * returns the job id either way.
 */
export interface DrillJobData {
  key: string;
  action: string;
  /** The payload as JSON text, kept as the producer gave it. */
  payload: string;
  maxAttempts: number;
  nonce: string;
}

export function newJobData(request: Omit<DrillJobData, 'nonce'>): DrillJobData {
  return { ...request, nonce: randomUUID() };
}

/** The job's data as stored (the `data` field of its hash); a job not made by the drill reads as empty fields. */
export function parseJobData(text: string | undefined): DrillJobData {
  try {
    const data = JSON.parse(text ?? '{}') as Partial<DrillJobData>;
    return {
      key: data.key ?? '',
      action: data.action ?? '',
      payload: data.payload ?? 'null',
      maxAttempts: data.maxAttempts ?? 1,
      nonce: data.nonce ?? '',
    };
  } catch {
    return { key: '', action: '', payload: 'null', maxAttempts: 1, nonce: '' };
  }
}

/**
 * BullMQ's ids are its own (a job id may not be a bare integer); the key is
 * made safe for one (no colon: BullMQ joins keys with colons).
 */
export function jobIdFor(key: string): string {
  return `k-${Buffer.from(key, 'utf8').toString('base64url')}`;
}

/** The keys of the one queue of a drill. */
export function queueKeys(prefix: string, queue: string) {
  const base = `${prefix}:${queue}`;
  return {
    base,
    wait: `${base}:wait`,
    paused: `${base}:paused`,
    active: `${base}:active`,
    prioritized: `${base}:prioritized`,
    delayed: `${base}:delayed`,
    completed: `${base}:completed`,
    failed: `${base}:failed`,
    events: `${base}:events`,
    job: (id: string) => `${base}:${id}`,
    lock: (id: string) => `${base}:${id}:lock`,
    /**
     * The one thing BullMQ cannot say of a failed job: that it waits for an
     * approval rather than a decision. Written only after BullMQ accepted the
     * holder's fenced move to failed.
     */
    outcomes: `${base}:qd-outcomes`,
  };
}

export type QueueKeys = ReturnType<typeof queueKeys>;
