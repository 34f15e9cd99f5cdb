import type { CallMeta } from '../world/ledger/calls-table.js';
import type { DeliveryReport } from '../world/ledger/deliveries-table.js';

/** Who is calling, for the world's ledger: the world's own type, so the two cannot drift apart. */
export type { CallMeta };

/** The world's answer to "did the effect with this key happen?". */
export type Reconciliation =
  | { status: 'completed'; result: unknown; externalRef: string | null }
  | { status: 'not_executed' }
  | { status: 'unknown'; reason: string };

/** The part of the world a plan needs: call a tool, and ask what happened. */
export interface WorldPort {
  call(
    tool: string,
    key: string,
    args: Record<string, unknown>,
    meta: CallMeta,
  ): Promise<{ result: unknown; externalRef: string | null; replayed: boolean }>;
  /** With a fence (the caller's epoch and its job), the answer also fences every older holder off the key and the job. */
  reconcile(tool: string, key: string, fence?: { epoch: number; job?: string }): Promise<Reconciliation>;
  /** Tells the world where a holder's delivery stands, so it can order the queue's writes against its calls; absent: not told. */
  reportDelivery?(report: DeliveryReport): Promise<void>;
}
