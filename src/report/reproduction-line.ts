import type { ScenarioReport } from './schema.js';

/** One line for a person: reproduced or not, and what differed. */
export function describeReproduction(reproduction: NonNullable<ScenarioReport['reproduction']>): string {
  const list = (ids: readonly string[]) => (ids.length > 0 ? ids.join(', ') : 'nothing');
  return reproduction.reproduced
    ? `reproduced: the same invariants broke (${list(reproduction.broken)})`
    : `NOT reproduced: the run replayed broke ${list(reproduction.expected)}; this one broke ${list(reproduction.broken)}`;
}
