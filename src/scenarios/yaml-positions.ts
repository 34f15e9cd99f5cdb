import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type LineCounter, visit, type YAMLError } from 'yaml';
import { formatPath, type ScenarioIssue, type Segment } from './scenario-issue.js';
import { plainYamlProblem } from './yaml-problems.js';

/*
 * Where things are in the YAML text: the document, parsed with a LineCounter,
 * maps a path in the data to a line and column, and a parser's error offset
 * back to a path in the data.
 */

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
export function locate(doc: Document, lineCounter: LineCounter, path: readonly Segment[]): Position {
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
export function yamlIssue(doc: Document, lineCounter: LineCounter, problem: YAMLError): ScenarioIssue {
  const plain = plainYamlProblem(doc, problem);
  const at = pathAt(doc.contents, plain.offset);
  // A duplicate key is about that key. Any other error on a key (`covers: crash: x` makes `crash`
  // a key) is about the value being written, which the parser misread as a key.
  const path = problem.code !== 'DUPLICATE_KEY' && at.onKey ? at.path.slice(0, -1) : at.path;
  const message =
    problem.code === 'DUPLICATE_KEY'
      ? `duplicate key ${JSON.stringify(String(path[path.length - 1] ?? ''))}: already set above in this mapping; keep one`
      : problem.code === 'TAG_RESOLVE_FAILED'
        ? `${problem.message} (scenarios.yaml uses plain YAML: no custom tags)`
        : plain.message;
  return { path: formatPath(path), ...positionAt(lineCounter, plain.offset), message };
}

/** toJS failed: point at the first alias with no anchor before it, if that is why. */
export function aliasIssue(doc: Document, lineCounter: LineCounter, error: unknown): ScenarioIssue {
  let offset: number | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      offset = alias.range?.[0];
      return visit.BREAK;
    },
  });
  const where =
    offset === undefined
      ? { path: '', line: null, column: null }
      : { path: formatPath(pathAt(doc.contents, offset).path), ...positionAt(lineCounter, offset) };
  return { ...where, message: `YAML: ${(error as Error).message}` };
}
