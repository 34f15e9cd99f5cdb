import type fc from 'fast-check';
import type { z } from 'zod';
import type { FieldSpec } from '../../kernel/action-fields.js';
import type { WorldCall } from '../effects.js';
import type { ReceivedCall } from '../received-call.js';

/*
 * What one network-side fault is, in one place: its shape in the world's API
 * (POST /faults), the fields a scenario gives it, the phrase a report names it
 * by, what the world does to a call it matches, and how explore draws it. The
 * world's fault schema, the scenario schema, explore and the docs read these
 * (./index.ts): adding one is one file and one entry.
 */

/** A field a scenario gives a world fault, besides `world` (which calls) and `times`: a duration, yes or no, or one of the statuses a `fail` answers. */
export type WorldActionField = FieldSpec<'ms' | 'boolean' | 'fail-status'>;

/** One world fault action: `Action` is its shape in the world's API, `{ type, ...arguments }`. */
export interface WorldFaultAction<Name extends string = string, Action extends { type: Name } = { type: Name }> {
  name: Name;
  /** One line for the docs and the scenario schema. */
  summary: string;
  /** Its shape as the world's API takes it. */
  schema: z.ZodType<Action>;
  fields: Readonly<Record<string, WorldActionField>>;
  /** The world's action from a scenario fault's fields (required ones are there: the scenario schema checked). */
  fromScenario(fields: Readonly<Record<string, unknown>>): Action;
  /** The phrase a report names it by: "delay 1000 ms (applied)". */
  describe(action: Action): string;
  /** What the world does to a valid call this fault matched: apply it or not, then answer, late, wrongly, or never. */
  carryOut(received: ReceivedCall, call: WorldCall, action: Action): Promise<void>;
  /** Explore's draw of this action's fields and how many calls it hits; absent when explore never picks it. */
  explore?: (fast: typeof fc) => fc.Arbitrary<Record<string, unknown> & { times: number }>;
}
