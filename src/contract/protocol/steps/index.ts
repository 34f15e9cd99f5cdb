import type { ProtocolStep } from '../protocol-check.js';
import { deliverStep, heartbeatStep, settleStep } from './delivery.js';
import { enqueueDedupeStep } from './enqueue.js';
import { helloStep, provisionOpenStep } from './handshake.js';
import { compensationStep, humanStep, takeoverStep } from './optional-parts.js';
import { fitStep, provisionIsolatedStep, teardownStep } from './protocol-2.js';
import { exitOnCloseStep, unknownOpStep } from './robustness.js';
import { sagaLogStep } from './saga-log.js';
import { snapshotStep } from './snapshot.js';
import { staleWriteStep } from './stale-write.js';
import { workLoopStep } from './work-loop.js';

/** The conformance suite, in order: hello first (every other step needs it). */
export const PROTOCOL_STEPS: readonly ProtocolStep[] = [
  helloStep,
  provisionOpenStep,
  provisionIsolatedStep,
  teardownStep,
  fitStep,
  enqueueDedupeStep,
  deliverStep,
  heartbeatStep,
  settleStep,
  staleWriteStep,
  workLoopStep,
  snapshotStep,
  takeoverStep,
  compensationStep,
  humanStep,
  sagaLogStep,
  unknownOpStep,
  exitOnCloseStep,
];
