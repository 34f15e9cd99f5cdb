import { UsageError } from '../kernel/errors.js';
import { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';

/** A comma-separated list of invariant ids from flag `flag`; an unknown one is bad input, naming the flag and what is allowed. */
export function parseInvariantList(flag: string, text: string): InvariantId[] {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !(INVARIANT_IDS as readonly string[]).includes(id));
  if (unknown.length > 0)
    throw new UsageError(`${flag}: unknown invariant ${unknown.map((id) => JSON.stringify(id)).join(', ')}; allowed: ${INVARIANT_IDS.join(', ')}`);
  return ids as InvariantId[];
}
