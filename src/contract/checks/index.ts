import type { ContractCheck } from '../check.js';
import { attemptsBounded } from './attempts-bounded.js';
import { enqueueDedupe } from './enqueue-dedupe.js';
import { expiredLeaseTakenBack } from './expired-lease-taken-back.js';
import { reviewSticky } from './review-sticky.js';
import { singleClaim } from './single-claim.js';
import { staleWriteRefused } from './stale-write-refused.js';

/** Every check of the adapter contract, in the order they are run and reported. */
export const CONTRACT_CHECKS: readonly ContractCheck[] = [enqueueDedupe, singleClaim, staleWriteRefused, expiredLeaseTakenBack, attemptsBounded, reviewSticky];
