import { toolMetadata } from '../../world/catalogue.js';
import type { Invariant } from '../evidence.js';
import { acceptedByKey, effectLabel, evidenceList, groupEffectsByKey, jobLabel, judge, planOf, sideEffectSteps, stepEffects } from './support.js';

/**
 * No key applied twice in the world's ledger (the ground truth, not the
 * queue's word), and every done job's side-effect steps applied exactly once.
 * An idempotent tool cannot get two rows under one key by construction of the
 * world; two rows there mean the world's dedupe broke, which is reported too.
 * Judged: each side-effect step of a done job compared with the ledger.
 */
export const noDuplicateEffect: Invariant = {
  id: 'no-duplicate-effect',
  statement: 'no non-idempotent effect is applied twice for one key; every done job has its effects exactly once',
  needs: [],
  check: (evidence) =>
    judge(noDuplicateEffect.id, noDuplicateEffect.statement, evidence, (found) => {
      const byKey = groupEffectsByKey(evidence);
      if (evidenceList(evidence, 'effects').length === 0) found.note('the ledger holds no effect');
      for (const [key, effects] of byKey) {
        if (effects.length < 2) continue;
        const tools = [...new Set(effects.map((e) => e.tool))];
        const idempotent = effects.every((e) => e.idempotent && toolMetadata(e.tool)?.idempotent !== false);
        const what = idempotent ? 'idempotent by key, yet' : 'not idempotent,';
        found.breach(`key ${key} (${tools.join(', ')}, ${what} applied ${effects.length} times): ${effects.map(effectLabel).join('; ')}`);
      }
      const accepted = acceptedByKey(evidence);
      for (const job of evidenceList(evidence, 'jobs')) {
        if (job.status !== 'done') continue;
        const lookup = planOf(job, accepted);
        if (lookup.plan === null) {
          found.note(`${lookup.problem}: its effects were not counted`);
          continue;
        }
        for (const { step, key } of sideEffectSteps(job, lookup.plan)) {
          found.judged();
          const applied = stepEffects(byKey, key);
          if (applied.length !== 1) {
            found.breach(
              `${jobLabel(job)} is done, but step ${step.step_id} (${step.tool}) is in the ledger ${applied.length} ` +
                `times under key ${key}${applied.length > 0 ? `: ${applied.map(effectLabel).join('; ')}` : ''}`,
            );
          }
        }
      }
    }),
};
