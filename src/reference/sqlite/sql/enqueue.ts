import { blockThisThread } from '../../../kernel/block-thread.js';
import { creationEvent } from '../../history-event.js';
import { type Db, statement, transactionOf } from '../store.js';
import { appendEvent } from './append-event.js';

/** A job to add, as the store writes it: payload already JSON, times already UTC strings. */
export interface EnqueueInput {
  key: string;
  action: string;
  payloadJson: string;
  maxAttempts: number;
  at: string;
}

/** How a producer's enqueue reaches the store: the reference enqueue below, or a variant's. */
export type Enqueuer = (db: Db, input: EnqueueInput) => { created: boolean; jobId: number };

/** What an enqueue does about a key that is already taken; the reference's are REFERENCE_ENQUEUE_RULES. */
export interface EnqueueRules {
  /**
   * Who decides that a key is taken: the insert itself, on the store's UNIQUE
   * key (one statement), or a look-up before the insert (check, then act).
   */
  dedupe: 'unique-key' | 'check-then-insert';
  /** How long the work between the look-up and the insert lasts (a broken variant's race window: src/variants/work-window.ts; 0 in the reference). */
  workMs: number;
}

/**
 * One statement decides: the UNIQUE constraint, not a look-up before the
 * insert (check-then-insert lets two racing producers both see "absent").
 */
export const REFERENCE_ENQUEUE_RULES: EnqueueRules = { dedupe: 'unique-key', workMs: 0 };

const INSERT = `
INSERT INTO agent_jobs (idempotency_key, action, payload_json, max_attempts, next_run_at, created_at, updated_at)
VALUES (@key, @action, @payloadJson, @maxAttempts, @at, @at, @at)`;

// The first job with the key: on a store without the unique key there may be more than one.
const EXISTING = `SELECT id FROM agent_jobs WHERE idempotency_key = ? ORDER BY id LIMIT 1`;

/**
 * An enqueue made by `rules` (each rule not given is the reference's): adds a
 * job unless one with the key exists, and says whether it created it. The job
 * and its history row are written in one immediate transaction; with
 * check-then-insert, the look-up runs before that transaction, and a lost race
 * is a second job (or, where the store still has the key, a constraint error).
 */
export function enqueueWith(given: Partial<EnqueueRules> = {}): Enqueuer {
  const rules: EnqueueRules = { ...REFERENCE_ENQUEUE_RULES, ...given };
  const insert = `${INSERT}${rules.dedupe === 'unique-key' ? '\nON CONFLICT (idempotency_key) DO NOTHING' : ''}\nRETURNING id`;
  const existing = (db: Db, key: string) => statement(db, EXISTING).get(key) as { id: number } | undefined;
  const insertAndRecord = (db: Db, input: EnqueueInput) => {
    const inserted = statement(db, insert).get(input) as { id: number } | undefined;
    if (!inserted) return { created: false, jobId: existing(db, input.key)!.id };
    recordCreation(db, inserted.id, input.at);
    return { created: true, jobId: inserted.id };
  };
  return (db, input) => {
    if (rules.dedupe === 'check-then-insert') {
      const found = existing(db, input.key);
      if (found) return { created: false, jobId: found.id };
      blockThisThread(rules.workMs);
    }
    return transactionOf(db, insertAndRecord).immediate(db, input);
  };
}

/** Adds a job unless one with the key exists (the store's UNIQUE key decides); says whether it created it. */
export const enqueue: Enqueuer = enqueueWith(REFERENCE_ENQUEUE_RULES);

/** Records a job's creation in the history: the first line of its life. */
export function recordCreation(db: Db, jobId: number, at: string): void {
  appendEvent(db, { ...creationEvent(jobId), at });
}
