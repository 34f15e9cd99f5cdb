import type * as z from 'zod';
// The classes from zod's core directly: reaching them through z.core would bundle all of core (every locale) into each drill process.
import { $ZodNumberFormat, $ZodObject } from 'zod/v4/core';
import type { Segment } from './scenario-issue.js';

/*
 * Zod's issues reworded for a person editing YAML: "a mapping", not "object";
 * a union's alternatives merged or its closest branch chosen, rather than
 * "Invalid input"; the allowed keys named next to an unknown one.
 */

/** How the error map marks its messages: the allowed keys, and an integer expected. */
const ALLOWED = 'allowed: ';
const INTEGER = 'expected int';

/**
 * Zod's issues say which key is unknown but not which are allowed, and a missing integer reads
 * as a missing number. This error map sees the schema that raised each issue, so it says both in
 * the issue's message, which explainIssue() reads back.
 */
export function markIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'unrecognized_keys' && issue.inst instanceof $ZodObject) return `${ALLOWED}${Object.keys(issue.inst._zod.def.shape).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.inst instanceof $ZodNumberFormat && issue.inst._zod.def.format.includes('int')) return INTEGER;
  return undefined;
}

/** One problem in the author's words, at its path in the data. */
export interface Explained {
  path: Segment[];
  message: string;
}

/** A zod issue in words for a YAML author; an unknown-keys issue becomes one per key, at that key. */
export function explainIssue(issue: z.core.$ZodIssue, prefix: readonly Segment[]): Explained[] {
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case 'invalid_union':
      return explainUnion(issue, path);
    case 'unrecognized_keys': {
      const allowed = issue.message.startsWith(ALLOWED) ? `; ${issue.message}` : '';
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown key ${JSON.stringify(key)}${allowed}` }));
    }
    case 'invalid_value':
      return [{ path, message: mismatch(issue.input, issue.values, []) }];
    case 'invalid_type':
      return [{ path, message: mismatch(issue.input, [], [expectedKind(issue)]) }];
    case 'invalid_key': {
      const key = path[path.length - 1];
      return [{ path, message: `invalid key ${JSON.stringify(String(key))}: ${issue.issues.map((inner) => inner.message).join('; ')}` }];
    }
    case 'too_small':
    case 'too_big':
      return [{ path, message: outOfRange(issue) }];
    case 'invalid_format':
      return [{ path, message: `${issue.message}; got ${describe(issue.input)}` }];
    default:
      // custom (the file's cross-field rules) and the rest: zod's message, which the schema wrote to be read.
      return [{ path, message: issue.message }];
  }
}

/**
 * A union reports each branch's failures. When every branch failed on the
 * value's kind alone (`workers: x`, `status: 500`), their expectations merge
 * into one message; otherwise the branch that got furthest (fewest problems,
 * a kind mismatch at its root counting as hopeless) speaks alone.
 */
function explainUnion(issue: z.core.$ZodIssueInvalidUnion, path: Segment[]): Explained[] {
  const branches = issue.errors.map((branch) => flattenRootUnions(branch));
  const rootOnly = branches.every(
    (branch) =>
      branch.length > 0 && branch.every((inner) => inner.path.length === 0 && (inner.code === 'invalid_type' || inner.code === 'invalid_value')),
  );
  if (rootOnly) {
    const values: unknown[] = [];
    const types: string[] = [];
    for (const inner of branches.flat()) {
      if (inner.code === 'invalid_value') values.push(...inner.values);
      else if (inner.code === 'invalid_type') types.push(expectedKind(inner));
    }
    return [{ path, message: mismatch(issue.input, [...new Set(values)], [...new Set(types)]) }];
  }
  const cost = (branch: z.core.$ZodIssue[]): number =>
    branch.reduce((sum, inner) => {
      if (inner.path.length === 0 && (inner.code === 'invalid_type' || inner.code === 'invalid_value')) return sum + 1000;
      if (inner.code === 'unrecognized_keys') return sum + inner.keys.length;
      return sum + 1;
    }, 0);
  let best = branches[0] ?? [];
  for (const branch of branches) if (cost(branch) < cost(best)) best = branch;
  if (best.length === 0) return [{ path, message: issue.message }];
  return best.flatMap((inner) => explainIssue(inner, path));
}

/** A union nested at the root of a branch (a union of unions) counts as more branches of the outer one. */
function flattenRootUnions(branch: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return branch.flatMap((inner) =>
    inner.code === 'invalid_union' && inner.path.length === 0 && inner.errors.every((b) => b.length === 1) ? inner.errors.flat() : [inner],
  );
}

/** What an invalid_type issue expected, telling an integer from any number. */
function expectedKind(issue: z.core.$ZodIssueInvalidType): string {
  return issue.message === INTEGER ? 'int' : issue.expected;
}

/** The value is not one of those allowed, or not of the kind expected; or it is missing. */
function mismatch(input: unknown, values: readonly unknown[], types: readonly string[]): string {
  const alternatives = [...values.map((value) => (typeof value === 'string' ? value : String(value)))];
  const kinds = types.map(kindName);
  const allowed =
    alternatives.length === 0
      ? kinds.join(' or ')
      : kinds.length === 0
        ? alternatives.join(', ')
        : `${alternatives.join(', ')}, or ${kinds.join(' or ')}`;
  // YAML never yields undefined (an empty value is null), so undefined is a key that is not there.
  if (input === undefined)
    return alternatives.length > 0 ? `required key is missing; allowed: ${allowed}` : `required key is missing; expected ${allowed}`;
  if (alternatives.length > 0 && isScalarValue(input)) return `invalid value ${describeScalar(input)}; allowed: ${allowed}`;
  return alternatives.length > 0 ? `expected one of ${allowed}; got ${describe(input)}` : `expected ${allowed}, got ${describe(input)}`;
}

/** A too_small or too_big issue as a bound and the value that broke it. */
function outOfRange(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const limit = issue.code === 'too_small' ? issue.minimum : issue.maximum;
  const bound = issue.code === 'too_small' ? (issue.inclusive ? 'at least' : 'more than') : issue.inclusive ? 'at most' : 'less than';
  const input = issue.input;
  switch (issue.origin) {
    case 'number':
    case 'int':
      return `must be ${bound} ${String(limit)}, got ${describe(input)}`;
    case 'array':
      return `needs ${bound} ${String(limit)} item${limit === 1 ? '' : 's'}, got ${Array.isArray(input) ? input.length : describe(input)}`;
    case 'string':
      return `must be ${bound} ${String(limit)} character${limit === 1 ? '' : 's'} long, got ${describe(input)}`;
    default:
      return issue.message;
  }
}

function kindName(expected: string): string {
  switch (expected) {
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    default:
      return expected;
  }
}

function isScalarValue(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function describeScalar(value: string | number | boolean | null): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** A value as the author wrote it: a scalar as itself, a collection by its kind. */
function describe(value: unknown): string {
  if (value === null) return 'an empty value (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return String(value);
}
