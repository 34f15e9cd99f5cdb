/*
 * The fields a family of actions (the fault actions at points, the world's
 * fault actions) takes in a scenario, collected from the actions themselves:
 * so the scenario schema offers exactly the fields some action takes, each
 * action requires its own and refuses the others', and a rule's argument is
 * what the fault gives of its action's fields.
 */

/** A field one action takes. */
export interface FieldSpec<Kind extends string = string> {
  kind: Kind;
  required: boolean;
  describe: string;
}

/** An action with the fields it takes. */
export interface WithFields<Kind extends string = string> {
  name: string;
  fields: Readonly<Record<string, FieldSpec<Kind>>>;
}

/** Every field any of the actions takes, with its kind, what it holds, and the actions that take it; a name used with two kinds is a bug. */
export function collectFields<Kind extends string>(
  actions: ReadonlyArray<WithFields<Kind>>,
): Map<string, { kind: Kind; describe: string; actions: string[] }> {
  const fields = new Map<string, { kind: Kind; describe: string; actions: string[] }>();
  for (const action of actions) {
    for (const [name, field] of Object.entries(action.fields)) {
      const known = fields.get(name);
      // One field name means one thing for every action, or a scenario schema could not say what it holds.
      if (known && known.kind !== field.kind)
        throw new Error(`field ${name} is a ${known.kind} for ${known.actions.join(', ')} but a ${field.kind} for ${action.name}`);
      if (known) known.actions.push(action.name);
      else fields.set(name, { kind: field.kind, describe: field.describe, actions: [action.name] });
    }
  }
  return fields;
}

/** The fields of `action` that `fault` gives (none: undefined). */
export function argOf(action: WithFields, fault: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const given = Object.keys(action.fields).filter((name) => fault[name] !== undefined);
  return given.length === 0 ? undefined : Object.fromEntries(given.map((name) => [name, fault[name]]));
}

/**
 * What a fault's action needs and does not take: each required field missing,
 * each field of another action given. `say` words the action ("pause", "a
 * world fail") and what a field of a kind may hold.
 */
export function fieldIssues<Kind extends string>(
  action: WithFields<Kind>,
  family: ReadonlyArray<WithFields<Kind>>,
  fault: Readonly<Record<string, unknown>>,
  say: { action: string; allowed?: (kind: Kind) => string | undefined },
): Array<{ field: string; message: string }> {
  const issues: Array<{ field: string; message: string }> = [];
  for (const [name, field] of Object.entries(action.fields)) {
    if (!field.required || fault[name] !== undefined) continue;
    const allowed = say.allowed?.(field.kind);
    issues.push({ field: name, message: `${say.action} needs ${name}${allowed ? `: ${allowed}` : ''}` });
  }
  const takes = Object.keys(action.fields);
  for (const name of collectFields(family).keys()) {
    if (fault[name] !== undefined && !takes.includes(name))
      issues.push({ field: name, message: `${say.action} takes no ${name}${takes.length > 0 ? `; it takes ${takes.join(', ')}` : ''}` });
  }
  return issues;
}
