/** What the drill stores in a pg-boss job's `data`: the request as the producer made it (pg-boss keeps no key of its own). */
export interface DrillJobData {
  key: string;
  action: string;
  /** JSON text, as the drill gave it. */
  payload: string;
  maxAttempts: number;
}

/** The drill's fields of a job's data, with safe fallbacks for a job some other client sent. */
export function readJobData(data: unknown): DrillJobData {
  const d = (data ?? {}) as Partial<DrillJobData>;
  return {
    key: typeof d.key === 'string' ? d.key : '',
    action: typeof d.action === 'string' ? d.action : '',
    payload: typeof d.payload === 'string' ? d.payload : '{}',
    maxAttempts: typeof d.maxAttempts === 'number' ? d.maxAttempts : 1,
  };
}

/**
 * What the drill writes as a job's `output` (pg-boss stores the data given to
 * complete or fail): the digest of a done job, the error of a failed attempt,
 * and for a job sent to review its reason and outcome.
 */
export interface DrillOutput {
  digest?: string;
  error?: string;
  reviewReason?: string;
  outcome?: 'review' | 'awaiting_approval';
  /** pg-boss's own: `{ value: { message } }` from maintenance's expiry, `message` from a handler's timeout. */
  value?: { message?: string };
  message?: string;
}

/** pg-boss's maintenance writes this output on a job it fails because its expireIn passed (plans.js failJobsByTimeout). */
export const EXPIRED_MESSAGE = 'job failed by timeout in active state';

export function readOutput(output: unknown): DrillOutput {
  return output !== null && typeof output === 'object' ? (output as DrillOutput) : {};
}

/** The error an output records, if any: the drill's, or pg-boss's own (an expiry, a handler timeout). */
export function outputError(output: DrillOutput): string | null {
  return output.error ?? output.value?.message ?? output.message ?? null;
}
