import type { TxEntry } from '../port/checkpoint.js';

/**
 * How many attempts a requeue from review adds on top of the job's own: a
 * person's approval resumes the attempt that stopped to ask for it, so the
 * run it starts is granted (1), not taken from the job's retries; a plain
 * requeue (0) allows one more attempt past those spent, no more.
 */
export function attemptGranted(checkpoint: TxEntry | undefined): 0 | 1 {
  return checkpoint?.action === 'approve' ? 1 : 0;
}
