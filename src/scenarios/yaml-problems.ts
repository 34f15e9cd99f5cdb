import { type Document, isMap, isScalar, isSeq, type Node, visit, type YAMLError } from 'yaml';
import { MAX_DEPTH } from './file-limits.js';

/*
 * The YAML parser's errors in the words of a person editing the file, at the
 * place they must fix. The parser reports where it noticed, which for an
 * unclosed `[`, `{` or quote is the line after, in its own terms ("Flow
 * sequence in block collection must be sufficiently indented"); the opening
 * that was never closed is where the mistake is.
 */

/** Where to point at and what to say for one parser problem. */
export interface PlainYamlProblem {
  offset: number;
  message: string;
}

/** The innermost node of the document that starts before `offset` and matches `test`, whose range reaches `offset`. */
function openedBefore(doc: Document, offset: number, test: (node: Node) => boolean): Node | undefined {
  let found: Node | undefined;
  const consider = (node: Node) => {
    const range = node.range;
    if (range && range[0] < offset && range[2] >= offset && test(node)) found = node;
  };
  visit(doc, {
    Map: (_, node) => consider(node),
    Seq: (_, node) => consider(node),
    Scalar: (_, node) => consider(node),
  });
  return found;
}

function quoted(node: Node): boolean {
  return isScalar(node) && (node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE');
}

/** The parser's problem, said plainly and placed at its cause where that is an opening never closed. */
export function plainYamlProblem(doc: Document, problem: YAMLError): PlainYamlProblem {
  const offset = problem.pos[0];
  const unclosed = /^Flow (sequence|map) in block collection/.exec(problem.message);
  if (problem.code === 'BAD_INDENT' && unclosed) {
    const sequence = unclosed[1] === 'sequence';
    const [open, close] = sequence ? ['[', ']'] : ['{', '}'];
    const node = openedBefore(doc, offset, (n) => (sequence ? isSeq(n) : isMap(n)) && Boolean((n as { flow?: boolean }).flow));
    return {
      offset: node?.range?.[0] ?? offset,
      message: `this ${open} is never closed: add the ${close} before the line ends (or continue it on lines indented further)`,
    };
  }
  if (problem.code === 'MISSING_CHAR' && /quote/.test(problem.message)) {
    const node = openedBefore(doc, offset, quoted);
    return { offset: node?.range?.[0] ?? offset, message: 'this quoted text is never closed: add the closing quote' };
  }
  if (problem.code === 'BLOCK_AS_IMPLICIT_KEY') {
    return { offset, message: 'a value cannot be `key: value` on the same line: quote the text, or put the mapping on lines of its own, indented' };
  }
  if (/Maximum call stack/.test(problem.message)) {
    return { offset, message: `nests too deep to read here: a scenarios file needs about 7 levels, and more than ${MAX_DEPTH} are refused` };
  }
  if (problem.code === 'TAB_AS_INDENT') return { offset, message: 'a tab indents this line: YAML indents with spaces only' };
  return { offset, message: `YAML: ${problem.message}` };
}
