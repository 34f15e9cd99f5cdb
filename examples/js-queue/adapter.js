// @ts-check
import { join } from 'node:path';
import { EnqueueError, FileSagaStore } from 'queue-drill/adapter';
import { LockTimeoutError } from './lock.js';
import { JsQueue } from './queue.js';
import { guardedSaga, once } from './saga.js';
import { StoreFile } from './store.js';
import { work } from './worker.js';

/*
 * js-queue as queue-drill drills it (`queue-drill run --adapter
 * ./examples/js-queue/adapter.js`): one JSON file per drill in the run
 * directory, the saga's checkpoints beside it in FileSagaStore's file, each
 * written under the queue's lock (saga.js).
 */

/** @type {import('queue-drill/adapter').QueueAdapter} */
const adapter = {
  name: 'js-queue',
  description: 'an example queue in plain JavaScript: one JSON file under a lock directory, leases fenced by epoch',
  version: '1.0.0',
  soundness: 'sound',
  locatorKind: 'file',
  capabilities: {
    evidence: { history: true, refusals: true, epoch: true, holder: true, digest: true, review: true, 'retry-policy': true, renewals: true },
    fencing: true,
    sagaStore: 'beside-the-run',
    takeover: 'coordinator',
    compensation: true,
    clock: 'caller',
  },

  async provision({ runDir }) {
    const locator = join(runDir, 'js-queue.json');
    StoreFile.create(locator);
    // The file stays with the run, as evidence.
    return { locator, env: {}, where: locator, teardown: async () => {} };
  },

  async connect(locator, options) {
    const queue = new JsQueue(locator, options);
    const file = FileSagaStore.open(`${locator}.saga.db`, options.clock);
    const saga = guardedSaga(queue, file);
    return {
      async enqueue(request) {
        try {
          return await queue.enqueue(request);
        } catch (error) {
          // A lock never taken certainly made nothing; anything else may have been written.
          throw new EnqueueError(error instanceof LockTimeoutError, `js-queue could not enqueue: ${error}`, { cause: error });
        }
      },
      work: (handler, workOptions) => work(queue, saga, handler, workOptions),
      async snapshot(snapshotOptions) {
        const { jobs, history } = queue.store.read();
        return { jobs, history: snapshotOptions?.history === false ? [] : history };
      },
      // The checkpoints count too: a plan that writes them is making progress before its job changes state.
      progress: async () => `${queue.store.read().version}:${(await file.rows()).length}`,
      saga,
      manual: {
        claim: (workerId) => queue.claim(workerId),
        heartbeat: async (claim) => (await queue.heartbeat(claim)).write,
        complete: (claim, digest) => queue.settle(claim, { kind: 'done', digest }),
        retry: (claim, error) => queue.settle(claim, { kind: 'retry', error }),
        review: (claim, reason, error) => queue.settle(claim, { kind: 'review', reason, error }),
      },
      takeover: {
        expireLease: (jobId) => queue.expireLease(jobId),
        expiredLeases: () => queue.expiredLeases(),
        // The checkpoint (what the world said) under the expired lease, in the release's lock.
        releaseExpired: (expired, release, by, checkpoint) =>
          queue.releaseExpired(
            expired,
            release,
            by,
            once(() => checkpoint && file.append({ ...expired, holder: by }, checkpoint)),
          ),
        maintain: () => queue.maintain(),
      },
      compensation: {
        claim: (coordinatorId) => queue.claimCompensation(coordinatorId),
        finish: (claim, outcome, reason) => queue.finishCompensation(claim, outcome, reason),
      },
      human: {
        // The person's decision goes to the saga's log too, so whoever runs the job next knows it was sent back on purpose.
        requeueFromReview: (jobId, by, note, checkpoint) =>
          queue.requeueFromReview(
            jobId,
            by,
            note,
            once((job) => {
              const writer = { jobId, attempt: job.attempts, epoch: job.epoch, holder: `human:${by}` };
              if (checkpoint) file.append(writer, checkpoint);
              file.append(writer, { stepId: '(job)', action: 'requeue', key: job.key, status: 'success', detail: note });
            }),
          ),
      },
      async close() {
        file.close();
      },
    };
  },
};

export default adapter;
