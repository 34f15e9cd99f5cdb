/*
 * `queue-drill/adapter`: what a user's own queue adapter is written against,
 * without forking queue-drill. A module whose default export is a QueueAdapter
 * is drilled with `queue-drill run --adapter ./my-adapter.js` (or `--queue
 * adapter:./my-adapter.js`, `compare --queues adapter:./my-adapter.js,sqlite`,
 * `runDrill({ adapter: './my-adapter.js' })`); every process of the drill
 * imports it by that path. docs/adapters.md says what each part must do, and
 * examples/js-queue/ is one written this way.
 *
 * The contract is types alone (src/port/); the values here are the pieces an
 * adapter would otherwise write again: the saga's log in a file beside the
 * run, the retry schedule and the release of a dead holder's job the judge
 * holds every queue to, the state machine, and how an idle worker waits.
 * Their declarations name no store's types.
 */

export { FileSagaStore } from '../adapters/saga-file/file-saga-store.js';
export type { Clock } from '../kernel/clock.js';
export { parseUtc, utc } from '../kernel/clock.js';
export type { LogLine } from '../kernel/log.js';
export type { Random } from '../kernel/random.js';
export { type Actor, EVIDENCE_KINDS, type EvidenceKind, JOB_STATUSES, type JobOutcome, type JobStatus } from '../kernel/vocabulary.js';
export type {
  Capabilities,
  CompensationOps,
  ConnectOptions,
  DrillDemands,
  DrillFit,
  EnqueueRequest,
  EnqueueResult,
  ExpiredLeaseRelease,
  HumanOps,
  ManualOps,
  Provisioned,
  ProvisionRequest,
  QueueAdapter,
  QueueConnection,
  RetryDelayPolicy,
  ServerSettings,
  TakeoverOps,
} from '../port/adapter.js';
export { EnqueueError } from '../port/adapter.js';
export type { Incident, SagaLog, SagaStore, TxEntry, TxRow, Writer } from '../port/checkpoint.js';
export type { Claim, Delivery, DeliveryHandler, QueueOwnWrite, Settlement, WorkOptions, WriteResult } from '../port/delivery.js';
export type { QueueOptionSpecs, QueueOptionValues } from '../port/queue-options.js';
export { defaultRelease } from '../port/release.js';
export { retryDelayMs } from '../port/retry-delay.js';
export type { JobSnapshot, QueueSnapshot, Transition } from '../port/snapshot.js';
export { ALLOWED_TRANSITIONS, isAllowedTransition } from '../port/states.js';
export { waitForWork } from '../port/wait-for-work.js';
export type { WakeSignals } from '../port/wake-signals.js';
