import { HarnessError, InputError } from '../../kernel/errors.js';
import { EVIDENCE_MEANING } from '../../kernel/vocabulary.js';
import type { JobSnapshot } from '../../port/snapshot.js';
import { type Evidence, type Expectation, INVARIANT_IDS, type Invariant, type InvariantId, type Verdict } from '../evidence.js';
import { acceptedByKey, clip, evidenceList, jobLabel, shortKey } from './support.js';

export { maskSecret } from './secrets-redacted.js';

/**
 * One invariant from its file, named by its id (src/judge/invariants/<id>.ts):
 * the export that is an invariant with this id. The registry is
 * INVARIANT_KINDS (kernel/vocabulary.ts), one line an invariant (its id and
 * kind), which the scenario file, the report and the queues' port read too;
 * adding an invariant is that line and its file, nothing else.
 */
// @vite-ignore: the test runner would rewrite a variable import into a glob of this folder; Node resolves it as it is.
export async function loadInvariant(id: InvariantId, importFile = (name: string) => import(/* @vite-ignore */ `./${name}.js`)): Promise<Invariant> {
  const module: Record<string, unknown> = await importFile(id);
  const found = Object.values(module).filter((value): value is Invariant => isInvariant(value) && value.id === id);
  if (found.length !== 1) throw new InvariantFileError(id, found.length);
  return found[0]!;
}

function isInvariant(value: unknown): value is Invariant {
  return typeof value === 'object' && value !== null && typeof (value as Invariant).check === 'function' && 'id' in value;
}

/** An invariant's file that exports no invariant with its id, or more than one: a contributor's slip, found at start. */
export class InvariantFileError extends HarnessError {
  constructor(id: string, count: number) {
    super('QD_INVARIANT_FILE', `src/judge/invariants/${id}.ts exports ${count} invariants with id ${JSON.stringify(id)}; it must export exactly one`);
  }
}

/** Every invariant, in INVARIANT_IDS order. */
export const INVARIANTS: readonly Invariant[] = await Promise.all(INVARIANT_IDS.map((id) => loadInvariant(id)));

/** Thrown for an invariant id that does not exist: a caller's bug, named with the ids that do. */
export class UnknownInvariantError extends InputError {
  readonly code = 'QD_UNKNOWN_INVARIANT';
  constructor(readonly ids: readonly string[]) {
    super(`unknown invariant id(s) ${ids.map((id) => JSON.stringify(id)).join(', ')}; known: ${INVARIANT_IDS.join(', ')}`);
  }
}

/**
 * Why an invariant cannot be judged on this evidence: the kinds it needs that
 * the queue could not give, each with the queue's reason. Null when it can.
 */
export function notJudgedReason(invariant: Invariant, evidence: Evidence): string | null {
  const missing = invariant.needs.filter((kind) => evidence.available?.[kind] !== true);
  if (missing.length === 0) return null;
  return missing
    .map((kind) => `needs ${kind} (${EVIDENCE_MEANING[kind]}): ${String(evidence.available?.[kind] ?? 'the queue does not say it gives it')}`)
    .join('; ');
}

/**
 * Judges the evidence by every invariant (or only those named), in
 * INVARIANT_IDS order. An invariant whose evidence the queue cannot give is
 * not judged, and says why: a judge never passes what it could not see. Never
 * throws on odd evidence: a checker that cannot judge returns a failing verdict
 * saying so. Throws UnknownInvariantError for an id that is not an invariant's.
 */
export function checkInvariants(evidence: Evidence, only?: readonly InvariantId[]): Verdict[] {
  if (only !== undefined) {
    const unknown = only.filter((id) => !(INVARIANT_IDS as readonly string[]).includes(id));
    if (unknown.length > 0) throw new UnknownInvariantError(unknown);
  }
  const wanted = only === undefined ? undefined : new Set<string>(only);
  return INVARIANTS.filter((invariant) => wanted === undefined || wanted.has(invariant.id)).map((invariant) => {
    const reason = notJudgedReason(invariant, evidence);
    if (reason === null) return invariant.check(evidence);
    return (
      invariant.checkWithout?.(evidence, reason) ?? {
        id: invariant.id,
        statement: invariant.statement,
        status: 'not_judged',
        judged: 0,
        evidence: [],
        note: reason,
      }
    );
  });
}

/**
 * Why one job's final state is not what its scenario expects, or null when it
 * is: status done or review; `compensated` and `compensation_failed` are
 * review with that outcome; `any` is done or review; `reason`, a regular
 * expression the review reason (for a done job, the last error) must match.
 */
export function expectationMismatch(job: JobSnapshot | undefined, key: string, expect: Expectation | undefined): string | null {
  const wanted = expect?.status ?? '(no expectation)';
  if (!job) return `key ${shortKey(key)}: expected ${wanted}, but no job with this key is in the store`;
  const reason = job.reviewReason ?? '';
  const as = job.outcome && job.outcome !== job.status ? ` as ${job.outcome}` : '';
  const got = `${job.status}${as}${job.status === 'review' ? ` (reason ${clip(reason, 100)})` : ''}`;
  let matches: boolean;
  switch (expect?.status) {
    case 'done':
      matches = job.status === 'done';
      break;
    case 'review':
      matches = job.status === 'review';
      break;
    case 'compensated':
      matches = job.status === 'review' && job.outcome === 'compensated';
      break;
    case 'compensation_failed':
      matches = job.status === 'review' && job.outcome === 'compensation_failed';
      break;
    case 'any':
      // Explored schedules cannot know how a job should end; only the invariants judge them.
      matches = job.status === 'done' || job.status === 'review';
      break;
    case undefined:
      return `${jobLabel(job)}: the scenario states no expectation for it (ended ${got})`;
    default: {
      const unreachable: never = expect!.status;
      return `${jobLabel(job)}: unknown expected status ${JSON.stringify(unreachable)} (ended ${got})`;
    }
  }
  if (!matches) return `${jobLabel(job)}: expected ${wanted}, got ${got}`;
  if (expect.reason === undefined) return null;
  let pattern: RegExp;
  try {
    pattern = new RegExp(expect.reason);
  } catch {
    return `${jobLabel(job)}: expected reason /${expect.reason}/ is not a valid regular expression`;
  }
  const text = job.status === 'review' ? reason : (job.lastError ?? '');
  return pattern.test(text)
    ? null
    : `${jobLabel(job)}: ended ${wanted} as expected, but its ` +
        `${job.status === 'review' ? 'review reason' : 'last error'} ${clip(text, 100)} does not match /${expect.reason}/`;
}

/** One line per accepted job whose final state is not what its scenario expects (none when all match). */
export function expectationVerdicts(evidence: Evidence): string[] {
  const jobs = evidenceList(evidence, 'jobs');
  return [...acceptedByKey(evidence).values()]
    .map((accepted) =>
      expectationMismatch(
        jobs.find((j) => j.key === accepted.key),
        accepted.key,
        accepted.expect,
      ),
    )
    .filter((line): line is string => line !== null);
}
