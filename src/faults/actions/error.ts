import {
  BusinessRuleError,
  type JobError,
  PermanentError,
  PolicyViolationError,
  TransientError,
  UnknownOutcomeError,
} from '../../kernel/job-errors.js';
import type { PointFaultAction } from '../action.js';
import { INJECTED_ERROR_KINDS, type InjectedErrorKind } from '../points.js';

const ERRORS: Record<InjectedErrorKind, new (message: string) => JobError> = {
  transient: TransientError,
  permanent: PermanentError,
  unknown_outcome: UnknownOutcomeError,
  policy: PolicyViolationError,
  business: BusinessRuleError,
};

const isKind = (value: unknown): value is InjectedErrorKind => (INJECTED_ERROR_KINDS as readonly unknown[]).includes(value);

/** error: the point throws a typed job error (transient, permanent, unknown outcome, policy, business) for the recovery matrix to route. */
export const error: PointFaultAction<'error', { type: 'error'; kind: InjectedErrorKind; message: string }> = {
  name: 'error',
  summary: 'the point throws a typed error for the recovery matrix to route',
  fields: {
    kind: { kind: 'error-kind', required: true, describe: `which typed error: ${INJECTED_ERROR_KINDS.join(', ')}` },
    message: { kind: 'text', required: false, describe: "the error's message [default: names the point and the rule]" },
  },
  holds: false,
  stopsHolder: false,
  checkArg(arg) {
    if (!isKind(arg?.kind)) return `error needs arg.kind, one of ${INJECTED_ERROR_KINDS.join(', ')}`;
    if (arg.message !== undefined && typeof arg.message !== 'string') return 'error arg.message must be a string';
    return null;
  },
  resolve: (arg, rule) => ({
    type: 'error',
    kind: arg!.kind as InjectedErrorKind,
    message: (arg!.message as string | undefined) ?? `injected ${String(arg!.kind)} error at ${rule.point} (fault rule ${rule.id})`,
  }),
  async fire(action, control) {
    control.answer({ action: 'error', kind: action.kind, message: action.message });
  },
  isAnswer: (answer) => isKind(answer.kind) && typeof answer.message === 'string',
  async carryOut(answer) {
    throw new ERRORS[answer.kind as InjectedErrorKind](answer.message as string);
  },
  timeline: () => [],
  explore: (fc) => fc.constantFrom(...INJECTED_ERROR_KINDS).map((kind) => ({ kind })),
  exhaustive: [
    { name: 'transient', fields: { kind: 'transient', message: 'injected transient error' } },
    { name: 'permanent', fields: { kind: 'permanent', message: 'injected permanent error' } },
    { name: 'unknown', fields: { kind: 'unknown_outcome', message: 'injected unknown outcome' } },
  ],
};
