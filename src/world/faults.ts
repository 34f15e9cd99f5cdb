import type Database from 'better-sqlite3';
import * as z from 'zod';
import { TOOL_NAMES } from './catalogue.js';
import { badRequest, issuesOf } from './errors.js';
import { WORLD_FAULT_ACTIONS, type WorldFaultActionSpec } from './fault-actions/index.js';
import { withLedgerFile } from './ledger.js';

/*
 * Network-side faults the harness arms on the world: the failures that sit
 * between a worker and an outside system. They are stored in the ledger file,
 * so a restarted world keeps them and the harness can read how often each one
 * fired, including never (fired 0), which means the drill did not test what it
 * claims to.
 */

export { WORLD_FAIL_STATUSES } from './fault-actions/index.js';

/** What the world does to a matched call: one of the actions of ./fault-actions/, told apart by `type`. */
const WorldFaultActionSchema = z.discriminatedUnion(
  'type',
  WORLD_FAULT_ACTIONS.map((action) => action.schema) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<WorldFaultActionSpec>;

/**
 * Which calls a fault hits: every given matcher must hold; none given matches
 * any call. `nth` is the call's seq in the ledger's call table (1-based,
 * counting every POST /call this ledger received, rejected ones included).
 */
export const FaultMatchSchema = z.strictObject({
  key: z.string().min(1).optional(),
  tool: z.enum(TOOL_NAMES).optional(),
  nth: z.int().min(1).optional(),
});
/** The matchers of a fault. */
export type FaultMatch = z.infer<typeof FaultMatchSchema>;

/** A fault as the harness arms it: POST /faults. `times` (default 1) caps how often it fires. */
export const FaultSpecSchema = z.strictObject({
  match: FaultMatchSchema.default({}),
  action: WorldFaultActionSchema,
  times: z.int().min(1).default(1),
});
/** A fault spec with its defaults filled in. */
export type FaultSpec = z.infer<typeof FaultSpecSchema>;
/** A fault spec as written by hand (match and times may be left out). */
export type FaultSpecInput = z.input<typeof FaultSpecSchema>;

/** An armed fault and what it has done so far. */
export interface ArmedFault {
  id: number;
  spec: FaultSpec;
  fired: number;
  /** How many more calls it will hit (0: spent, or cleared). */
  remaining: number;
  armedAt: string;
  clearedAt: string | null;
}

/** The call a fault is matched against. */
export interface MatchableCall {
  seq: number;
  tool: string;
  key: string;
}

/** Validates a fault spec; a WORLD_BAD_REQUEST error names each wrong path ("action.status"). */
export function parseFaultSpec(input: unknown): FaultSpec {
  const parsed = FaultSpecSchema.safeParse(input);
  if (!parsed.success) throw badRequest('WORLD_BAD_REQUEST', 'fault spec', issuesOf(parsed.error.issues));
  return parsed.data;
}

/** Whether a fault's matchers all hold for a call. */
export function faultMatches(match: FaultMatch, call: MatchableCall): boolean {
  return (
    (match.key === undefined || match.key === call.key) &&
    (match.tool === undefined || match.tool === call.tool) &&
    (match.nth === undefined || match.nth === call.seq)
  );
}

type RawFault = { id: number; spec_json: string; times: number; fired: number; armed_at: string; cleared_at: string | null };

function toArmed(raw: RawFault): ArmedFault {
  return {
    id: raw.id,
    spec: JSON.parse(raw.spec_json) as FaultSpec,
    fired: raw.fired,
    remaining: raw.cleared_at === null ? Math.max(0, raw.times - raw.fired) : 0,
    armedAt: raw.armed_at,
    clearedAt: raw.cleared_at,
  };
}

function allFaults(db: Database.Database): ArmedFault[] {
  return (db.prepare('SELECT * FROM faults ORDER BY id').all() as RawFault[]).map(toArmed);
}

/** The faults of one ledger file. */
export class FaultTable {
  constructor(private readonly db: Database.Database) {}

  /** Arms a validated fault; it fires from the next matching call on. */
  arm(spec: FaultSpec, at: string): ArmedFault {
    const info = this.db.prepare('INSERT INTO faults (spec_json, times, armed_at) VALUES (?, ?, ?)').run(JSON.stringify(spec), spec.times, at);
    return { id: Number(info.lastInsertRowid), spec, fired: 0, remaining: spec.times, armedAt: at, clearedAt: null };
  }

  /** The armed faults (not cleared), or all of them ever armed on this ledger. */
  list(options: { includeCleared?: boolean } = {}): ArmedFault[] {
    const all = allFaults(this.db);
    return options.includeCleared ? all : all.filter((fault) => fault.clearedAt === null);
  }

  /** Disarms every armed fault and returns them with their final fired counts; they stay in the file as evidence. */
  clear(at: string): ArmedFault[] {
    return this.db.transaction(() => {
      const armed = this.list();
      this.db.prepare('UPDATE faults SET cleared_at = ? WHERE cleared_at IS NULL').run(at);
      return armed.map((fault) => ({ ...fault, remaining: 0, clearedAt: at }));
    })();
  }

  /**
   * The fault that hits this call, counted as fired, or null. At most one fires
   * per call: the earliest armed that matches and has times left. Run it in the
   * transaction that records the call, so two worlds on one file cannot both
   * spend the last firing.
   */
  take(call: MatchableCall): ArmedFault | null {
    for (const fault of this.list()) {
      if (fault.remaining <= 0 || !faultMatches(fault.spec.match, call)) continue;
      const spent = this.db.prepare('UPDATE faults SET fired = fired + 1 WHERE id = ? AND fired < times AND cleared_at IS NULL').run(fault.id);
      if (spent.changes === 1) return { ...fault, fired: fault.fired + 1, remaining: fault.remaining - 1 };
    }
    return null;
  }
}

/** Every fault ever armed on a ledger file, cleared ones included, with fired counts. */
export function readFaults(file: string): ArmedFault[] {
  return withLedgerFile(file, allFaults);
}
