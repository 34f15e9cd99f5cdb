import type { JobReport } from '../report/schema.js';
import type { Evidence } from './evidence.js';

/** One effect the world's ledger holds more than once for a key, and who applied each. */
export type DuplicatedEffect = JobReport['duplicatedEffects'][number] & { appliedBy: string[] };

/** Every key the ledger applied more than once, in the order each key was first applied. */
export function duplicatedEffects(effects: Evidence['effects']): DuplicatedEffect[] {
  const byKey = new Map<string, Evidence['effects']>();
  for (const effect of effects) byKey.set(effect.key, [...(byKey.get(effect.key) ?? []), effect]);
  return [...byKey]
    .filter(([, applied]) => applied.length > 1)
    .map(([key, applied]) => ({
      key,
      tool: applied[0]!.tool,
      times: applied.length,
      appliedBy: applied.map((e) => `${e.worker} pid ${e.pid} attempt ${e.attempt} at ${e.at}`),
    }));
}

/**
 * The duplicates that belong to the job with this key: an effect's key starts
 * with the first 16 characters of its job's key (src/saga/plan.ts stepKey and
 * compensationKey). Without who applied them, as a job's report lists them.
 */
export function duplicatesOfJob(duplicates: readonly DuplicatedEffect[], jobKey: string): JobReport['duplicatedEffects'] {
  return duplicates.filter((d) => d.key.startsWith(jobKey.slice(0, 16))).map(({ key, tool, times }) => ({ key, tool, times }));
}
