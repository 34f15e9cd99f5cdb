import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { z } from 'zod';
import { ScenarioFileSchema, type ScenarioFile } from './schema.js';
import { InputError } from '../kernel/errors.js';

/*
 * scenarios.yaml is read once, here, at the boundary. A file is refused with
 * every problem at once, each with its path, its line and column, and what is
 * allowed instead, so one run of queue-drill is enough to fix a file.
 *
 * Zod says what is wrong and where in the data; the YAML document (parsed with
 * a LineCounter) says where that is in the text. Zod's issues are reworded for
 * a person editing YAML: "a mapping", not "object"; a union's alternatives
 * merged or its closest branch chosen, rather than "Invalid input".
 */

/** One problem in a scenarios file: where (path, line, column) and what would be right. */
export interface ScenarioIssue {
  /** Where in the data, e.g. `scenarios[2].faults[0].action`; '' for the file as a whole. */
  path: string;
  /** 1-based; null when the problem has no place in the text (the file could not be read, or is empty). */
  line: number | null;
  /** 1-based, with `line`. */
  column: number | null;
  message: string;
}

/** A scenarios file that cannot be read or does not validate: every issue, each with its path and line. */
export class ScenarioFileError extends InputError {
  readonly code = 'QD_BAD_SCENARIOS';
  override readonly name = 'ScenarioFileError';
  readonly source: string;
  readonly issues: readonly ScenarioIssue[];

  constructor(source: string, issues: readonly ScenarioIssue[], options?: { cause?: unknown }) {
    const lines = formatIssues(source, issues);
    // A file that could not be read is one plain sentence; a file with problems in it is a list.
    const placeless = issues.length === 1 && issues[0]!.line === null;
    super(placeless ? lines : `${issues.length === 1 ? '1 problem' : `${issues.length} problems`} in ${source}:\n${lines}`, options);
    this.source = source;
    this.issues = issues;
  }
}

/** Reads and validates a scenarios file; throws ScenarioFileError, for a missing file too. */
export function loadScenarioFile(path: string): ScenarioFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? `no such file (looked for ${resolve(path)})`
      : code === 'EISDIR' ? 'is a directory, not a scenarios file'
      : `cannot be read: ${(error as Error).message}`;
    throw new ScenarioFileError(path, [{ path: '', line: null, column: null, message: why }], { cause: error });
  }
  return parseScenarioText(text, path);
}

/** Parses and validates scenarios.yaml text; `source` names it in messages (a path, usually). */
export function parseScenarioText(text: string, source: string): ScenarioFile {
  const lineCounter = new LineCounter();
  // Duplicate keys are errors (uniqueKeys defaults to true); an unknown tag is a warning, refused too.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const yamlProblems = [...doc.errors, ...doc.warnings];
  if (yamlProblems.length > 0) throw new ScenarioFileError(source, sortIssues(yamlProblems.map((problem) => yamlIssue(doc, lineCounter, problem))));

  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // toJS throws for an alias to an anchor defined later or nowhere, or past maxAliasCount.
    throw new ScenarioFileError(source, [aliasIssue(doc, lineCounter, error)], { cause: error });
  }

  // Zod's issues say which key is unknown but not which are allowed, and a missing integer reads
  // as a missing number. The error map sees the schema that raised each issue, so it says both in
  // the issue's message, which explain() reads back.
  const result = ScenarioFileSchema.safeParse(data, {
    reportInput: true,
    error: (issue) => {
      if (issue.code === 'unrecognized_keys' && issue.inst instanceof z.core.$ZodObject) return `${ALLOWED}${Object.keys(issue.inst._zod.def.shape).join(', ')}`;
      if (issue.code === 'invalid_type' && issue.inst instanceof z.core.$ZodNumberFormat && issue.inst._zod.def.format.includes('int')) return INTEGER;
      return undefined;
    },
  });
  if (result.success) return result.data;

  const seen = new Set<string>();
  const issues: ScenarioIssue[] = [];
  for (const { path, message } of result.error.issues.flatMap((issue) => explain(issue, []))) {
    const id = `${formatPath(path)}\u0000${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push({ path: formatPath(path), ...locate(doc, lineCounter, path), message });
  }
  throw new ScenarioFileError(source, sortIssues(issues));
}

/** One line per issue, `source:line:column path: message`, the form editors and terminals link. */
export function formatIssues(source: string, issues: readonly ScenarioIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.line === null ? source : `${source}:${issue.line}:${issue.column ?? 1}`;
      return issue.path === '' ? `${where}: ${issue.message}` : `${where} ${issue.path}: ${issue.message}`;
    })
    .join('\n');
}

type Segment = PropertyKey;

/** How the error map marks its messages: the allowed keys, and an integer expected. */
const ALLOWED = 'allowed: ';
const INTEGER = 'expected int';

interface Explained {
  path: Segment[];
  message: string;
}

/** A zod issue in words for a YAML author; an unknown-keys issue becomes one per key, at that key. */
function explain(issue: z.core.$ZodIssue, prefix: readonly Segment[]): Explained[] {
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
  const rootOnly = branches.every((branch) => branch.length > 0 && branch.every((inner) => inner.path.length === 0 && (inner.code === 'invalid_type' || inner.code === 'invalid_value')));
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
  return best.flatMap((inner) => explain(inner, path));
}

/** A union nested at the root of a branch (a union of unions) counts as more branches of the outer one. */
function flattenRootUnions(branch: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return branch.flatMap((inner) => (inner.code === 'invalid_union' && inner.path.length === 0 && inner.errors.every((b) => b.length === 1) ? inner.errors.flat() : [inner]));
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
    alternatives.length === 0 ? kinds.join(' or ')
    : kinds.length === 0 ? alternatives.join(', ')
    : `${alternatives.join(', ')}, or ${kinds.join(' or ')}`;
  // YAML never yields undefined (an empty value is null), so undefined is a key that is not there.
  if (input === undefined) return alternatives.length > 0 ? `required key is missing; allowed: ${allowed}` : `required key is missing; expected ${allowed}`;
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

/** `scenarios[2].faults[0].action`; a key that is not a plain word is quoted: `plans["a.b"]`. */
function formatPath(path: readonly Segment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z0-9_-]+$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** Whole-file problems first, then in the order of the text. */
function sortIssues(issues: ScenarioIssue[]): ScenarioIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => (a.issue.line ?? 0) - (b.issue.line ?? 0) || (a.issue.column ?? 0) - (b.issue.column ?? 0) || a.index - b.index)
    .map(({ issue }) => issue);
}

type Position = Pick<ScenarioIssue, 'line' | 'column'>;

function positionAt(lineCounter: LineCounter, offset: number | undefined): Position {
  if (offset === undefined) return { line: null, column: null };
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function startOf(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}

/**
 * Where a data path is in the text: a mapping entry at its key, a list item
 * at the item. A key that is not there (a missing required key) is placed at
 * the mapping that should hold it.
 */
function locate(doc: Document, lineCounter: LineCounter, path: readonly Segment[]): Position {
  let node: unknown = doc.contents;
  let offset = startOf(node);
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => keyName(item.key) === String(segment));
      if (!pair) {
        offset = startOf(node) ?? offset;
        break;
      }
      offset = startOf(pair.key) ?? startOf(pair.value) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      offset = startOf(node) ?? offset;
    } else {
      break;
    }
  }
  return positionAt(lineCounter, offset);
}

function keyName(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return key === null || key === undefined ? undefined : String(key);
}

/**
 * The data path of the innermost entry at an offset, and whether the offset is
 * on that entry's key. An entry spans its key, any tag or anchor, and its value.
 */
function pathAt(node: unknown, offset: number, path: Segment[] = []): { path: Segment[]; onKey: boolean } {
  const spans = (from: unknown, to: unknown): boolean => {
    const start = startOf(from);
    const end = endOf(to);
    return start !== undefined && end !== undefined && start <= offset && offset <= end;
  };
  if (isMap(node)) {
    for (const pair of node.items) {
      const name = keyName(pair.key);
      if (name === undefined || !spans(pair.key, pair.value ?? pair.key)) continue;
      if (spans(pair.key, pair.key)) return { path: [...path, name], onKey: true };
      if ((isMap(pair.value) || isSeq(pair.value)) && spans(pair.value, pair.value)) return pathAt(pair.value, offset, [...path, name]);
      return { path: [...path, name], onKey: false };
    }
  } else if (isSeq(node)) {
    const index = node.items.findIndex((item) => spans(item, item));
    if (index >= 0) return pathAt(node.items[index], offset, [...path, index]);
  }
  return { path, onKey: false };
}

function endOf(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[2] : undefined;
}

/** A YAML error or warning at its line; its path is where in the data the parser was when it stumbled. */
function yamlIssue(doc: Document, lineCounter: LineCounter, problem: YAMLError): ScenarioIssue {
  const at = pathAt(doc.contents, problem.pos[0]);
  // A duplicate key is about that key. Any other error on a key (`covers: crash: x` makes `crash`
  // a key) is about the value being written, which the parser misread as a key.
  const path = problem.code !== 'DUPLICATE_KEY' && at.onKey ? at.path.slice(0, -1) : at.path;
  const message =
    problem.code === 'DUPLICATE_KEY' ? `duplicate key ${JSON.stringify(String(path[path.length - 1] ?? ''))}: already set above in this mapping; keep one`
    : problem.code === 'TAG_RESOLVE_FAILED' ? `${problem.message} (scenarios.yaml uses plain YAML: no custom tags)`
    : `YAML: ${problem.message}`;
  return { path: formatPath(path), ...positionAt(lineCounter, problem.pos[0]), message };
}

/** toJS failed: point at the first alias with no anchor before it, if that is why. */
function aliasIssue(doc: Document, lineCounter: LineCounter, error: unknown): ScenarioIssue {
  let offset: number | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      offset = alias.range?.[0];
      return visit.BREAK;
    },
  });
  const where = offset === undefined ? { path: '', line: null, column: null } : { path: formatPath(pathAt(doc.contents, offset).path), ...positionAt(lineCounter, offset) };
  return { ...where, message: `YAML: ${(error as Error).message}` };
}
