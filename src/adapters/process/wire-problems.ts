import type { z } from 'zod';
import { DeliverEventSchema, isWireOp, WIRE_OPS } from './wire-schemas.js';

/*
 * What is wrong with a message, said as a person fixing the child needs it:
 * the field's path as the message spells it (`snapshot.jobs[0].status`),
 * what the protocol expects there, and what came (`expected one of pending,
 * running, …, got "finished"`). zod's issues are the data; this is one view
 * of them.
 */

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** How many problems one message is reported with (the rest are counted). */
const SHOWN = 3;

/** What each of zod's type names is called here. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'text',
  int: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  null: 'null',
};

/** `value` checked against `schema`: one line a problem (`where.path: what`), at most SHOWN and a count of the rest; none when it is well-formed. */
export function problemsOf(schema: z.ZodType, value: unknown, where: string): string[] {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  const all = result.error.issues.flatMap((issue) => flatten(issue, []));
  const shown = all.slice(0, SHOWN).map(({ path, what }) => `${where}${pathText(path)}: ${what}`);
  return all.length > SHOWN ? [...shown, `and ${all.length - SHOWN} more`] : shown;
}

/** The problems of an ok answer's body to `op` (an op the protocol does not know has no schema: none). */
export function okBodyProblems(op: string, body: unknown): string[] {
  return isWireOp(op) ? problemsOf(WIRE_OPS[op].ok, body, op) : [];
}

/** The problems of a `deliver` event, the whole event (`deliver.delivery.epoch`). */
export function deliverProblems(event: unknown): string[] {
  return problemsOf(DeliverEventSchema, event, 'deliver');
}

/** The field's path as a message spells it: `.jobs[0].status`. */
export function pathText(path: Path): string {
  return path
    .map((key) => (typeof key === 'number' ? `[${key}]` : /^[\w-]+$/.test(String(key)) ? `.${String(key)}` : `[${JSON.stringify(String(key))}]`))
    .join('');
}

/**
 * An issue as the problems it stands for. A union's issue holds one list of
 * issues per alternative: when the value failed only one alternative past its
 * type (a claim with a bad field, not a claim or null), that alternative's
 * problems are the ones worth saying; else what each alternative expected.
 */
function flatten(issue: Issue, base: Path): Array<{ path: Path; what: string }> {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const near = issue.errors.filter((branch) => branch.some((i) => i.path.length > 0 || (i.code !== 'invalid_type' && i.code !== 'invalid_value')));
    if (near.length === 1) return near[0]!.flatMap((i) => flatten(i, path));
    return [{ path, what: said(issue.errors.map((branch) => expectation(branch[0]!)).join(' or '), issue) }];
  }
  return [{ path, what: said(expectation(issue), issue) }];
}

/** What the schema wanted where `issue` is. */
function expectation(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_WORDS[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return issue.values.length === 1 ? shown(issue.values[0]) : `one of ${issue.values.map(word).join(', ')}`;
    case 'invalid_union':
      return 'options' in issue && Array.isArray(issue.options) ? `one of ${issue.options.map(word).join(', ')}` : issue.message;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) === 1 ? 'text, not empty' : `text of ${issue.minimum} characters or more`;
      return `${issue.origin === 'array' ? 'a list of length' : 'a number'} ${issue.minimum} or more`;
    case 'too_big':
      if (issue.origin === 'string') return `text of ${issue.maximum} characters or fewer`;
      return `${issue.origin === 'array' ? 'a list of length' : 'a number'} ${issue.maximum} or less`;
    case 'unrecognized_keys':
      return `no field ${issue.keys.join(', ')}`;
    default:
      // A format (a time, a digest) says what it wants in its own message.
      return issue.message;
  }
}

/** What was expected and what came: `expected X, got Y`, or `missing (expected X)`. */
function said(expected: string, issue: Issue): string {
  // A discriminated union's issue carries the whole object; what came is its discriminator's value.
  const input = issue.code === 'invalid_union' && 'discriminator' in issue ? field(issue.input, issue.discriminator) : issue.input;
  return input === undefined ? `missing (expected ${expected})` : `expected ${expected}, got ${shown(input)}`;
}

function field(value: unknown, name: unknown): unknown {
  return typeof value === 'object' && value !== null && typeof name === 'string' ? (value as Record<string, unknown>)[name] : undefined;
}

/** A value as JSON, cut short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** A word of a list of allowed values: text as it is, anything else as JSON. */
function word(value: unknown): string {
  return typeof value === 'string' ? value : shown(value);
}
