import { CATALOGUE, TOOL_NAMES, type ToolName } from './catalogue.js';

/*
 * The kinds of effect the catalogue's tools have, as recovery tells them apart
 * (docs/design.md, "The stages of a step"): an idempotent effect is repeated by
 * key after an unknown outcome; one that is not idempotent is looked up first
 * (or goes to review), and is undone by compensation only if it is reversible.
 * A tool without a side effect has no kind: there is nothing to recover.
 */

/** Every kind of effect, in the order explore and the shipped drill walk them. */
export const TOOL_EFFECT_KINDS = ['idempotent', 'non_idempotent_reversible', 'non_idempotent_irreversible'] as const;
/** One of TOOL_EFFECT_KINDS. */
export type ToolEffectKind = (typeof TOOL_EFFECT_KINDS)[number];

/** The kind of effect a tool has, or null for a tool without a side effect. */
export function toolEffectKind(tool: ToolName): ToolEffectKind | null {
  const meta = CATALOGUE[tool];
  if (!meta.hasSideEffect) return null;
  if (meta.idempotent) return 'idempotent';
  return meta.reversible ? 'non_idempotent_reversible' : 'non_idempotent_irreversible';
}

/** The tools of a kind: the tools a plan's step of that kind can call. */
export function toolsOfKind(kind: ToolEffectKind): ToolName[] {
  return TOOL_NAMES.filter((tool) => toolEffectKind(tool) === kind);
}
