import { CATALOGUE, type ToolName } from './catalogue.js';
import type { WorldLedger } from './ledger.js';

/*
 * The transaction sketch's reconciliation: after an unknown outcome, ask the outside system
 * what happened under the key instead of retrying blind. The world answers
 * only what the real system could: a mail relay keeps no record by request
 * id, so for send_email the answer stays `unknown` even though the ledger
 * knows. That is what makes the unknown-outcome path of a queue testable.
 */

/** The answer to "did the call under this key happen?". */
export type ReconcileAnswer =
  | { status: 'completed'; result: unknown; externalRef: string; applied: number }
  | { status: 'not_executed' }
  | { status: 'unknown'; reason: string };

/** What the world can say about `tool` under `key`; `applied` counts the effects (above 1: a duplicate). */
export function reconcile(ledger: WorldLedger, tool: ToolName, key: string): ReconcileAnswer {
  const meta = CATALOGUE[tool];
  if (!meta.hasSideEffect)
    return { status: 'unknown', reason: `${tool} has no side effect: there is nothing to reconcile, and calling it again is safe` };
  if (!meta.lookup) return { status: 'unknown', reason: `${tool} cannot be looked up by key: the system keeps no record of request ids` };
  const effects = ledger.effectsFor(key).filter((effect) => effect.tool === tool);
  const first = effects[0];
  if (!first) return { status: 'not_executed' };
  return { status: 'completed', result: first.result, externalRef: first.externalRef, applied: effects.length };
}
