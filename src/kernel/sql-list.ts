/**
 * A fixed vocabulary (states, actors, checkpoint actions) as a SQL list of
 * string literals, for the CHECK constraints and triggers of a schema. The
 * values are the project's own words, never input: nothing to escape.
 */
export const sqlList = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(', ');
