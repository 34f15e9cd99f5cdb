import type { LogLine } from '../kernel/log.js';
import type { JobStatus } from '../kernel/vocabulary.js';
import type { SagaLog, Writer } from './checkpoint.js';

/** A job held by one holder under one epoch: what every write of that holder must show. */
export interface Claim extends Writer {
  key: string;
  action: string;
  /** The payload as stored: JSON text. */
  payload: string;
  maxAttempts: number;
  /** The holder's token where the queue has one (BullMQ's lock token); null where the holder's id and the epoch are all. */
  token: string | null;
  leaseUntil: string | null;
}

/** A claimed job handed to the drill's handler by the queue's own consumption loop. */
export interface Delivery extends Claim {
  /** Aborted when the holder loses the job: a renewal was refused, or the attempt ran past its deadline. */
  signal: AbortSignal;
  /** The saga's checkpoints of this job, fenced for this holder. */
  saga: SagaLog;
}

/** How the handler wants a delivery settled; the queue turns it into exactly one write. */
export type Settlement =
  | { kind: 'done'; digest: string }
  /** Another attempt later (review instead when none is left). */
  | { kind: 'retry'; error: string }
  | { kind: 'review'; reason: string; error?: string; awaitingApproval?: boolean }
  /** A step failed for good after others may have happened: hand the job to the coordinator to undo them. */
  | { kind: 'compensate'; reason: string; error: string }
  /** The holder found it lost the job: nothing to write. */
  | { kind: 'lease_lost'; step?: string };

/** Whether a holder's write was applied, or refused because its lease was lost (and recorded as refused where the queue keeps refusals). */
export type WriteResult = { ok: true; status: JobStatus } | { ok: false; refused: string };

/** The drill's side of a worker: runs one delivery and says how to settle it. */
export type DeliveryHandler = (delivery: Delivery) => Promise<Settlement>;

/** A write the queue's loop makes for a delivery on its own: `expired`, failing a job whose handler outlived its lease. */
export type QueueOwnWrite = 'expired';

/** How a worker process runs. */
export interface WorkOptions {
  workerId: string;
  /** Aborted to stop after the current job (SIGTERM). */
  stop: AbortSignal;
  /** How long to wait before looking again when nothing is ready. */
  pollMs: number;
  /** Stop once nothing is pending, retrying or running. */
  exitWhenDrained: boolean;
  /** Stop after this many jobs (0: no limit). */
  maxJobs: number;
  /**
   * An attempt keeps its lease for this long at most: a step that hangs (while
   * the process lives on and could renew for ever) loses the job instead of
   * holding it until someone notices.
   */
  maxAttemptMs: number;
  /** Called before each renewal of a held lease, where the queue renews from the worker: the harness's heartbeat failpoint. */
  beforeRenewal?: (delivery: Claim) => Promise<void>;
  /**
   * Told the end of each lease the queue grants, in the queue's own clock, as
   * soon as it is applied: the claim's, then each renewal's. Only where the
   * drill's side sees the grant (the adapter then gives `renewals` evidence):
   * what the judge places a lease's true end by.
   */
  onLease?: (delivery: Claim, leaseUntil: string, by: 'claim' | 'renewal') => void;
  /** Told how each delivery was settled. */
  onSettled?: (delivery: Claim, settlement: Settlement, write: WriteResult | null) => void;
  /**
   * The queue's own loop writes for a delivery on its own, not a settlement the
   * handler returned (pg-boss fails a job whose handler outlived expireIn):
   * told as the write goes out, with what the queue's record shows it did once
   * known (null: it cannot tell).
   */
  onQueueWrite?: (delivery: Claim, write: QueueOwnWrite, applied: Promise<boolean | null>) => void;
  /** The loop's own log lines (claimed, lease lost, a handler that crashed). */
  log: (line: LogLine) => void;
}
