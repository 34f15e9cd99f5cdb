import {
  acceptedByKey,
  defineInvariant,
  eventLabel,
  evidenceList,
  groupEffectsByKey,
  historyByJob,
  isDigest,
  jobLabel,
  leasesOf,
  planOf,
  sideEffectSteps,
  stepEffects,
} from './support.js';

/**
 * Done only on evidence: a 64-hex verification digest in the store; the last
 * change to done written by the holder of the lease current at that moment;
 * and every side-effect step of the plan present in the world's ledger (a done
 * job whose effects the world never saw was done on the worker's word).
 * Judged: each done job.
 */
export const doneIsVerified = defineInvariant({
  id: 'done-is-verified',
  statement: "done only with a verification digest, never on the worker's word",
  needs: ['digest', 'history'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    const accepted = acceptedByKey(evidence);
    const byKey = groupEffectsByKey(evidence);
    let done = 0;
    for (const job of evidenceList(evidence, 'jobs')) {
      if (job.status !== 'done') continue;
      done++;
      found.judged();
      const label = jobLabel(job);
      if (!isDigest(job.resultDigest))
        found.breach(`${label}: done without a verification digest (result_digest ${JSON.stringify(job.resultDigest)})`);
      const history = histories.get(job.id) ?? [];
      const toDone = history.filter((e) => e.kind === 'transition' && e.to === 'done');
      const last = toDone[toDone.length - 1];
      if (!last) found.breach(`${label}: done in the store, but its history has no transition to done`);
      else {
        const lease = leasesOf(history).find((l) => l.end?.seq === last.seq);
        if (!lease) found.breach(`${label}: ${eventLabel(last)} ends no lease: done was not written from a claimed run`);
        else if (last.worker !== lease.claim.worker || last.epoch !== lease.claim.epoch) {
          found.breach(`${label}: ${eventLabel(last)} was not written by the holder of the current lease (${eventLabel(lease.claim)})`);
        }
      }
      const lookup = planOf(job, accepted);
      if (lookup.plan === null) {
        found.note(`${lookup.problem}: its effects were not looked up in the ledger`);
        continue;
      }
      for (const { step, key } of sideEffectSteps(job, lookup.plan)) {
        if (stepEffects(byKey, key).length === 0) {
          found.breach(
            `${label}: done on the worker's word: step ${step.step_id} (${step.tool}) has no effect in the world's ledger under key ${key}`,
          );
        }
      }
    }
    if (done === 0) found.note('no job ended done in this drill');
  },
});
