/**
 * How many jobs a pg-boss write matched. pg-boss 10.4's types say complete,
 * fail and retry return void; its source (manager.js mapCommandResponse)
 * returns `{ jobs, requested, affected }`. An answer without it counts as
 * unknown (-1), never as nothing matched.
 */
export function affectedOf(result: unknown): number {
  const affected = (result as { affected?: unknown } | null | undefined)?.affected;
  return typeof affected === 'number' ? affected : -1;
}
