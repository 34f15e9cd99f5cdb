import type { ContractCheck } from '../check.js';
import { attemptsBoundedCheck } from './attempts-bounded.js';
import { enqueueDedupeCheck } from './enqueue-dedupe.js';
import { expiredLeaseTakenBackCheck } from './expired-lease-taken-back.js';
import { reviewStickyCheck } from './review-sticky.js';
import { singleClaimCheck } from './single-claim.js';
import { staleWriteRefusedCheck } from './stale-write-refused.js';

/** Every check of the adapter contract, in the order they are run and reported. */
export const CONTRACT_CHECKS: readonly ContractCheck[] = [
  enqueueDedupeCheck,
  singleClaimCheck,
  staleWriteRefusedCheck,
  expiredLeaseTakenBackCheck,
  attemptsBoundedCheck,
  reviewStickyCheck,
];
