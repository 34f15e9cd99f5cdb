import * as z from 'zod';

/*
 * The tools the world offers, with the transaction sketch's metadata (ToolMetadata and
 * CompensationPolicy merged). The coordinator decides from these flags whether
 * a failed call may be retried, must be reconciled, or goes to a person; the
 * world itself obeys them: an idempotent tool dedupes by key, a non-idempotent
 * one applies again on every call, a tool without lookup cannot be reconciled.
 */

/** How much harm a wrong call can do, lowest first. */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
/** One of RISK_LEVELS. */
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** How far an effect can be undone: exactly, by a business correction, not at all, or nothing to undo. */
export const ROLLBACK_TYPES = ['exact', 'business_compensation', 'not_reversible', 'none'] as const;
/** One of ROLLBACK_TYPES. */
export type RollbackType = (typeof ROLLBACK_TYPES)[number];

/** Every tool the world offers. */
export const TOOL_NAMES = [
  'read_file',
  'write_file',
  'restore_file_version',
  'create_branch',
  'delete_branch',
  'charge_customer',
  'send_email',
  'publish_article',
  'unpublish_article',
] as const;
/** One of TOOL_NAMES. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** What the world and its callers know about one tool. */
export interface ToolMetadata {
  name: ToolName;
  hasSideEffect: boolean;
  /** Idempotent by key: a repeat with the same key returns the stored result and applies nothing. */
  idempotent: boolean;
  reversible: boolean;
  riskLevel: RiskLevel;
  /** The tool that undoes this one, called with `{ compensates: <key of this call> }`. */
  compensationTool: ToolName | null;
  /** For a compensation tool: the tool whose effects it undoes. */
  compensationOf: ToolName | null;
  rollbackType: RollbackType;
  requiresHumanReview: boolean;
  /**
   * Whether the world can answer a reconciliation query (by key) for it. False
   * for a pure tool too: there is nothing to look up, a repeat is safe.
   */
  lookup: boolean;
  /** Prefix of the external reference of each applied effect ("ch_" + seq). */
  refPrefix: string;
  /** The arguments it accepts. Extra fields are allowed (and digested), never stored. */
  args: z.ZodType<Record<string, unknown>>;
}

const nonEmpty = z.string().min(1);

/** The arguments of every compensation tool: the idempotency key of the effect to undo. */
export const CompensationArgs = z.looseObject({ compensates: nonEmpty });

function tool(meta: ToolMetadata): ToolMetadata {
  return meta;
}

/** The catalogue: the transaction sketch's TOOLS and POLICIES, plus the compensations they name. */
export const CATALOGUE: Readonly<Record<ToolName, ToolMetadata>> = {
  read_file: tool({
    name: 'read_file',
    hasSideEffect: false,
    idempotent: true,
    reversible: true,
    riskLevel: 'low',
    compensationTool: null,
    compensationOf: null,
    rollbackType: 'none',
    requiresHumanReview: false,
    lookup: false,
    refPrefix: 'rd_',
    args: z.looseObject({ path: nonEmpty }),
  }),
  write_file: tool({
    name: 'write_file',
    hasSideEffect: true,
    idempotent: true,
    reversible: true,
    riskLevel: 'medium',
    compensationTool: 'restore_file_version',
    compensationOf: null,
    rollbackType: 'exact',
    requiresHumanReview: false,
    lookup: true,
    refPrefix: 'fv_',
    args: z.looseObject({ path: nonEmpty, content: z.string() }),
  }),
  restore_file_version: tool({
    name: 'restore_file_version',
    hasSideEffect: true,
    idempotent: true,
    reversible: false,
    riskLevel: 'medium',
    compensationTool: null,
    compensationOf: 'write_file',
    rollbackType: 'none',
    requiresHumanReview: false,
    lookup: true,
    refPrefix: 'fr_',
    args: CompensationArgs,
  }),
  create_branch: tool({
    name: 'create_branch',
    hasSideEffect: true,
    idempotent: true,
    reversible: true,
    riskLevel: 'low',
    compensationTool: 'delete_branch',
    compensationOf: null,
    rollbackType: 'exact',
    requiresHumanReview: false,
    lookup: true,
    refPrefix: 'br_',
    args: z.looseObject({ name: nonEmpty }),
  }),
  delete_branch: tool({
    name: 'delete_branch',
    hasSideEffect: true,
    idempotent: true,
    reversible: false,
    riskLevel: 'medium',
    compensationTool: null,
    compensationOf: 'create_branch',
    rollbackType: 'none',
    requiresHumanReview: false,
    lookup: true,
    refPrefix: 'bd_',
    args: CompensationArgs,
  }),
  charge_customer: tool({
    name: 'charge_customer',
    hasSideEffect: true,
    idempotent: false,
    reversible: false,
    riskLevel: 'critical',
    compensationTool: null,
    compensationOf: null,
    rollbackType: 'not_reversible',
    requiresHumanReview: true,
    // Payment APIs can be asked about a request id: the unknown outcome is resolvable.
    lookup: true,
    refPrefix: 'ch_',
    args: z.looseObject({ customer: nonEmpty, amount: z.number().positive() }),
  }),
  send_email: tool({
    name: 'send_email',
    hasSideEffect: true,
    idempotent: false,
    reversible: false,
    riskLevel: 'high',
    compensationTool: null,
    compensationOf: null,
    rollbackType: 'not_reversible',
    requiresHumanReview: true,
    // A mail relay keeps no record by request id: a timeout stays unknown, so a person decides.
    lookup: false,
    refPrefix: 'em_',
    args: z.looseObject({ to: nonEmpty, subject: z.string() }),
  }),
  publish_article: tool({
    name: 'publish_article',
    hasSideEffect: true,
    idempotent: false,
    reversible: true,
    riskLevel: 'high',
    compensationTool: 'unpublish_article',
    compensationOf: null,
    // Readers may already have seen it: unpublishing corrects the business state, not the past.
    rollbackType: 'business_compensation',
    requiresHumanReview: true,
    lookup: true,
    refPrefix: 'pub_',
    args: z.looseObject({ slug: nonEmpty }),
  }),
  unpublish_article: tool({
    name: 'unpublish_article',
    hasSideEffect: true,
    // A compensation is retried after failures of its own (the transaction sketch, section 14), so it is keyed.
    idempotent: true,
    reversible: false,
    riskLevel: 'medium',
    compensationTool: null,
    compensationOf: 'publish_article',
    rollbackType: 'none',
    requiresHumanReview: false,
    lookup: true,
    refPrefix: 'unp_',
    args: CompensationArgs,
  }),
};

/** Whether a name is a tool of the catalogue. */
export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/** The metadata of a tool, or undefined for a name the world does not know. */
export function toolMetadata(name: string): ToolMetadata | undefined {
  return isToolName(name) ? CATALOGUE[name] : undefined;
}
