import { type Applied, applyCall, type WorldCall } from './effects.js';
import { asWorldError, type WorldError } from './errors.js';
import type { WorldFaultActionSpec } from './fault-actions/index.js';
import type { ArmedFault } from './faults.js';
import type { CallMeta, CallOutcome } from './ledger/calls-table.js';
import { send, sendError } from './respond.js';
import type { RouteRequest, WorldContext } from './routes/route.js';

/*
 * A call from the moment its row is in the call table until it is answered
 * (or, by a fault, not). Every way a call can end goes through here, so the
 * row, the log line and the answer can never tell different stories.
 */

/** One line of the world's log per call: who, what tool, how it ended. Never the arguments. */
export interface CallLogEntry {
  seq: number;
  tool: string | null;
  key: string | null;
  outcome: CallOutcome;
  status: number | null;
  faultId: number | null;
  fault: WorldFaultActionSpec['type'] | null;
  externalRef: string | null;
  job: string | null;
  step: string | null;
  attempt: number | null;
  worker: string | null;
  ms: number;
}

/** A call as recorded on arrival: its seq, the fault it matched, and what could be read of it. */
export interface CallReceipt {
  seq: number;
  fault: ArmedFault | null;
  tool: string | null;
  key: string | null;
  meta: CallMeta | null;
  /** When it arrived, in clock ms (for the log's duration) and as the ledger's timestamp. */
  started: number;
  at: string;
}

/** What a committed call did, and the outcome its row records. */
export interface Committed {
  applied: Applied;
  outcome: CallOutcome;
}

/** A received call on its way to an answer. */
export class ReceivedCall {
  constructor(
    private readonly world: WorldContext,
    private readonly http: Pick<RouteRequest, 'req' | 'res'>,
    readonly receipt: CallReceipt,
  ) {}

  /** The id of the fault this call matched, or null. */
  get faultId(): number | null {
    return this.receipt.fault?.id ?? null;
  }

  /** Writes the call's log line; ms counts from its arrival to now. */
  log(outcome: CallOutcome, status: number | null, externalRef: string | null): void {
    const { seq, tool, key, meta, started } = this.receipt;
    this.world.onCall?.({
      seq,
      tool,
      key,
      outcome,
      status,
      faultId: this.faultId,
      fault: this.receipt.fault?.spec.action.type ?? null,
      externalRef,
      job: meta?.job ?? null,
      step: meta?.step ?? null,
      attempt: meta?.attempt ?? null,
      worker: meta?.worker ?? null,
      ms: this.world.clock.now() - started,
    });
  }

  /** Records the call as failed with `status` before anything was applied, without answering yet. */
  recordFailed(status: number): void {
    this.world.ledger.finishCall(this.receipt.seq, { outcome: 'failed', status, faultId: this.faultId, effectSeq: null });
  }

  /** Ends the call as failed, nothing applied: its row, its log line, and the error as the answer. */
  refuse(error: WorldError, headers: Record<string, string> = {}): void {
    this.recordFailed(error.status);
    this.log('failed', error.status, null);
    sendError(this.http.res, error, headers);
  }

  /**
   * Applies the call and completes its row in one transaction, so the row
   * says what the ledger holds even if the world dies before answering.
   * `status` is what the row records as answered (null: no answer, a drop).
   * Null when it could not be applied: then it is already refused.
   */
  commit(call: WorldCall, status: number | null, dropped = false): Committed | null {
    const { ledger } = this.world;
    try {
      return ledger.transaction(() => {
        const applied = applyCall(ledger, call, this.receipt.at);
        const outcome: CallOutcome = dropped ? 'dropped' : applied.replayed ? 'replayed' : 'applied';
        ledger.finishCall(this.receipt.seq, { outcome, status, faultId: this.faultId, effectSeq: applied.effectSeq });
        return { applied, outcome };
      });
    } catch (error) {
      this.refuse(asWorldError(error));
      return null;
    }
  }

  /** Waits ms before answering; false if the caller hung up or the world is closing. */
  hold(ms: number): Promise<boolean> {
    return this.world.delayed.hold(ms, this.http.res);
  }

  /** Answers 200 with what the call did. */
  answer(applied: Applied): void {
    send(this.http.res, 200, { result: applied.result, externalRef: applied.externalRef, replayed: applied.replayed });
  }

  /** Answers an error without touching the call's row (it was written when the call was decided). */
  answerError(error: WorldError): void {
    sendError(this.http.res, error);
  }

  /** Closes the connection without a word: the response is lost on the wire. */
  hangUp(): void {
    this.http.req.socket.destroy();
  }
}
