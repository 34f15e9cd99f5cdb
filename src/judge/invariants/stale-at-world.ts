import type { CallRow, DeliveryRow } from '../../world/ledger.js';
import type { WorldRecord } from '../evidence.js';
import type { Findings } from './support.js';

/*
 * Part of single-holder, judged from the world's own record, in its one
 * sequence: each holder reports its delivery's start (after the claim) and
 * each write it is about to make to the queue (before the write), and the
 * world numbers those reports among the calls it receives. So when another
 * delivery of the same job had begun before a holder announced its write, or
 * before its call arrived, that write or call came from a stale holder, in one
 * time base and whatever the queue keeps of its history:
 *   - a stale write the queue applied is a breach (it should have been
 *     refused: the queue let two holders write);
 *   - a stale call the world applied as a new effect is a breach (two holders
 *     acted on the job at once); one it refused or replayed by key is not.
 * Calls and writes of a delivery whose start was never reported (the world
 * was down) are not placed, and say so. A write the queue's loop makes on its
 * own (pg-boss failing a job whose handler outlived its lease) is reported as
 * it goes out rather than before; it is judged the same way, since no other
 * delivery can begin between that write and its report unless the job was
 * already free (src/adapters/pg-boss/expiry-watch.ts).
 */

/** The starts the world recorded: by job in its order, and by delivery. */
interface Starts {
  byJob: Map<string, DeliveryRow[]>;
  byDelivery: Map<string, DeliveryRow>;
}

const idOf = (row: { job: string | null; worker: string | null; epoch?: number | null; fence?: number | null }): string =>
  `${row.job}\u0000${row.worker}\u0000${row.epoch ?? row.fence}`;

const deliveryLabel = (row: Pick<DeliveryRow, 'worker' | 'epoch' | 'attempt'>): string =>
  `${row.worker}'s delivery (attempt ${row.attempt}, epoch ${row.epoch})`;

/**
 * Whether the queue handed `other` over before `own`: a lower epoch, and an attempt no later. A start is
 * reported after its claim, not at once: a holder the machine starved between the two reports late, after a
 * newer holder's start (seen in explore under load: w3's attempt 1, starved 561 ms past its 300 ms lease,
 * reported after w1 had claimed attempt 2), and that late report does not make the newer holder stale.
 */
function handedOverBefore(other: DeliveryRow, own: DeliveryRow): boolean {
  return other.epoch < own.epoch && other.attempt <= own.attempt;
}

/**
 * Whether `other` is a delivery the queue handed over after `own`: one whose start was reported after own's
 * (unless the queue handed it over first, above), or one with a higher epoch whose start was reported first
 * because own's holder was starved between its claim and its report. Either way own's holder is stale once
 * `other` began: a late report of its own start does not make it the holder again.
 */
function handedOverAfter(other: DeliveryRow, own: DeliveryRow): boolean {
  if (idOf(other) === idOf(own)) return false;
  return other.seq > own.seq ? !handedOverBefore(other, own) : handedOverBefore(own, other);
}

/** The first other delivery of the same job handed over after `own` that passes `isBefore` (before a report, or before a call arrived). */
function laterDelivery(starts: Starts, own: DeliveryRow, isBefore: (began: DeliveryRow) => boolean): DeliveryRow | undefined {
  return (starts.byJob.get(own.job) ?? []).find((b) => handedOverAfter(b, own) && isBefore(b));
}

/** A write as the evidence names it: a settlement's kind, or the queue loop's own fail. */
const writeName = (write: string | null): string => (write === 'expired' ? "the queue's own fail (the handler outlived the lease)" : (write ?? '?'));

function checkWrites(found: Findings, label: (job: string) => string, deliveries: readonly DeliveryRow[], starts: Starts): number {
  let judged = 0;
  for (const writing of deliveries.filter((d) => d.event === 'writing')) {
    const began = starts.byDelivery.get(idOf(writing));
    if (!began) {
      found.note(`a write of ${deliveryLabel(writing)} of job ${writing.job} was not placed: its start was never reported to the world`);
      continue;
    }
    judged++;
    const later = laterDelivery(starts, began, (b) => b.seq < writing.seq);
    if (!later) continue;
    const wrote = deliveries.find(
      (d) => d.event === 'wrote' && d.seq > writing.seq && idOf(d) === idOf(writing) && (d.write ?? writing.write) === writing.write,
    );
    const what =
      `${label(writing.job)}: ${deliveryLabel(writing)} wrote ${writeName(writing.write)} to the queue at ${writing.at}, ` +
      `after ${deliveryLabel(later)} began at ${later.at}`;
    if (wrote?.applied === true) found.breach(`${what}, and the queue applied it: a stale holder's write (the world's record)`);
    else if (wrote === undefined) found.note(`${what}; whether the queue applied it was never reported`);
  }
  return judged;
}

/** A call the world applied from a holder after another delivery of its job had begun: two holders acted. */
export interface StaleCall {
  call: CallRow;
  /** The stale holder's delivery, and the later one that began before its call arrived. */
  began: DeliveryRow;
  later: DeliveryRow;
  /** The breach as single-holder states it. */
  line: string;
}

/** Each holder's call the world could place (its delivery's start is known), and the later delivery it came after, if any. */
function placedCalls(calls: readonly CallRow[], starts: Starts): Array<{ call: CallRow; began: DeliveryRow; later: DeliveryRow | undefined }> {
  const placed = [];
  for (const call of calls) {
    if (call.job === null || call.fence === null || call.step?.endsWith(':compensate')) continue;
    const began = starts.byDelivery.get(idOf(call));
    if (!began) continue; // a coordinator's call, or a delivery the world never heard begin
    placed.push({ call, began, later: laterDelivery(starts, began, (b) => b.callsBefore < call.seq) });
  }
  return placed;
}

function staleCallsIn(calls: readonly CallRow[], starts: Starts, label: (job: string) => string): StaleCall[] {
  return placedCalls(calls, starts).flatMap(({ call, began, later }) =>
    later === undefined || call.outcome !== 'applied'
      ? []
      : [
          {
            call,
            began,
            later,
            line:
              `${label(call.job!)}: the world applied ${call.tool ?? '?'} (step ${call.step ?? '?'}, call #${call.seq}) from ${deliveryLabel(began)}, ` +
              `which arrived after ${deliveryLabel(later)} began at ${later.at}: two holders acted on the job (the world's record)`,
          },
        ],
  );
}

function startsOf(record: WorldRecord): Starts {
  const starts: Starts = { byJob: new Map(), byDelivery: new Map() };
  for (const row of record.deliveries) {
    if (row.event !== 'began') continue;
    starts.byJob.set(row.job, [...(starts.byJob.get(row.job) ?? []), row]);
    starts.byDelivery.set(idOf(row), row);
  }
  return starts;
}

/** The stale calls the world applied (each a breach of single-holder, in the words it is stated in). */
export function staleCallsAtTheWorld(record: WorldRecord | undefined, label: (job: string) => string): StaleCall[] {
  return record ? staleCallsIn(record.calls, startsOf(record), label) : [];
}

/** Judges the world's record; returns how many writes and calls it could place. */
export function checkAtTheWorld(found: Findings, record: WorldRecord | undefined, label: (job: string) => string): number {
  if (!record) return 0;
  const starts = startsOf(record);
  const writes = checkWrites(found, label, record.deliveries, starts);
  for (const stale of staleCallsIn(record.calls, starts, label)) found.breach(stale.line);
  return writes + placedCalls(record.calls, starts).length;
}
