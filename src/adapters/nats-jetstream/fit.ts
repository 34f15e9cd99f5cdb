import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { ackWaitOf, backoffFor, badOption, maxDeliverFor, natsOptions } from './options.js';

/**
 * The shortest ack wait the drill uses. JetStream's own timer keeps even
 * 100 ms to within a few ms (probe N0), but the worker renews with an
 * in-progress ack every third of it, and on a loaded 2-core machine a
 * process's timer can be late by tens of ms: below this, a live holder would
 * lose its message to a late renewal, not to a fault.
 */
export const MIN_ACK_WAIT_MS = 200;

/** How long a worker's pull request waits at the server for a message (answered at once when one is ready). */
export const PULL_EXPIRES_MS = 250;

/** Added to the longest wait JetStream may make before a redelivery: a pull, the record's write. */
const REDELIVERY_MARGIN_MS = 2_000;

/**
 * How JetStream runs a drill: the stream's and the consumer's settings made
 * from the demands (written into the report), or why it cannot. Refused: an
 * ack wait below MIN_ACK_WAIT_MS, options JetStream would not take. With a
 * doubling backoff a dead holder's message waits longer before each
 * redelivery, so the drill then waits at least that long.
 */
export function fitNatsJetstream(demands: DrillDemands): DrillFit {
  const options = natsOptions(demands.queueOptions);
  const bad = badOption(options);
  if (bad) return { ok: false, reason: `JetStream cannot run with ${bad}` };
  const ackWaitMs = options.ackWaitMs > 0 ? options.ackWaitMs : demands.leaseMs;
  if (ackWaitMs < MIN_ACK_WAIT_MS) {
    const scale = Math.ceil(MIN_ACK_WAIT_MS / ackWaitMs);
    return {
      ok: false,
      reason:
        `an ack_wait of ${ackWaitMs} ms is below the ${MIN_ACK_WAIT_MS} ms the drill keeps reliably on this machine (the worker renews it ` +
        `with an in-progress ack every third of it); run it in the same shape with --time-scale ${scale}, or set --queue-option ack_wait_ms`,
    };
  }
  const maxDeliver = maxDeliverFor(options, demands.maxAttempts);
  const backoff = backoffFor(options.backoff, ackWaitMs, maxDeliver);
  if (backoff.length > 0 && maxDeliver <= backoff.length)
    return { ok: false, reason: `JetStream requires max_deliver (${maxDeliver}) > the number of backoff values (${backoff.length})` };
  const budgets = [...new Set(demands.maxAttempts)].sort((a, b) => a - b);
  const over = budgets.filter((n) => n > maxDeliver);
  const retry = demands.retryDelay;
  const waits = Array.from({ length: maxDeliver }, (_, i) => ackWaitOf(i + 1, ackWaitMs, backoff));
  const atLeast =
    backoff.length === 0
      ? undefined
      : {
          noProgressMs: Math.max(...waits) + REDELIVERY_MARGIN_MS,
          timeoutMs: demands.timeoutMs + waits.reduce((sum, ms) => sum + ms, 0),
          why: `JetStream's backoff holds a dead holder's message ${waits.join(', ')} ms before each redelivery`,
        };
  return {
    ok: true,
    mapping: {
      stream: 'one per drill, retention workqueue, storage file, subject qd.<stream>.jobs',
      duplicate_window: `${options.duplicateWindowMs} ms: a key enqueued again after it makes a second job (Nats-Msg-Id is remembered that long)`,
      consumer: 'one durable pull consumer (workers), ack_policy explicit, one message a pull',
      ack_wait:
        backoff.length === 0
          ? `${ackWaitMs} ms (${options.ackWaitMs > 0 ? 'ack_wait_ms' : "the drill's lease"})`
          : `replaced by the backoff list (JetStream takes its first value): ${backoff[0]} ms`,
      backoff: backoff.length === 0 ? 'none' : `${backoff.join(', ')} ms (delivery 1, 2, ...; the last for every later one)`,
      max_deliver: `${maxDeliver} (${options.maxDeliver > 0 ? 'max_deliver' : "the drill's largest max_attempts"})`,
      'per-job budget':
        budgets.length === 0
          ? 'none asked'
          : `max_attempts ${budgets.join(', ')}: a delivery past its job's budget is terminated unrun (+TERM) and the job goes to review` +
            (over.length > 0 ? `; budgets ${over.join(', ')} exceed max_deliver: JetStream stops first` : ''),
      'in-progress ack': 'every third of the ack wait, while the handler runs (the heartbeat)',
      'nak delay': `the drill's retry policy: ${retry.baseMs} ms doubling to ${retry.capMs} ms, + 0..${retry.jitterMs} ms jitter (-NAK {"delay"})`,
      'last attempt': 'a retry on the last attempt, a review and a compensation are +TERM, and the job goes to review',
      review:
        'terminated (+TERM: the message leaves the stream) or exhausted (max_deliver deliveries: JetStream keeps it, never delivers it again); ' +
        "out only by a person's requeue, a new message",
      dedupe: 'Nats-Msg-Id = the idempotency key; a duplicate PubAck answers with the first message, whose stream sequence is the job id',
      pull: `pull requests of one message waiting up to ${PULL_EXPIRES_MS} ms at the server (answered as soon as a message is ready)`,
      compensation: 'none: JetStream has no compensating state',
    },
    ...(atLeast ? { atLeast } : {}),
  };
}
