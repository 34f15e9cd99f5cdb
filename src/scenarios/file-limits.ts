import { type Document, isMap, isPair, isSeq, type LineCounter } from 'yaml';
import type { ScenarioIssue } from './scenario-issue.js';

/*
 * The limits a scenarios file must keep before it is parsed or turned into
 * data, so a hostile or broken file is refused in a moment with its line,
 * never run out of memory or stack: its size, its encoding, how deep it nests.
 * The shipped file is about 30 KiB and nests 7 levels.
 */

/** The largest scenarios file read: far above any real one, far below what could take the harness more than a moment. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** How deep mappings and lists may nest: a scenario needs about 7 levels; a parser's stack needs a bound. */
export const MAX_DEPTH = 64;

/** How many jobs one group of a scenario may make (`count`): the schema refuses more, and no check may make that many first. */
export const MAX_JOB_COUNT = 1000;

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/** The issue with a file's size, or null when it is within the limit. */
export function sizeIssue(bytes: number): ScenarioIssue | null {
  if (bytes <= MAX_FILE_BYTES) return null;
  return {
    path: '',
    line: null,
    column: null,
    message: `is ${kib(bytes)}: a scenarios file is at most ${kib(MAX_FILE_BYTES)} (split it, or generate fewer scenarios per file)`,
  };
}

/** The file's text, or the issue at the first line and column that is not UTF-8. */
export function decodeUtf8(bytes: Buffer): { text: string } | { issue: ScenarioIssue } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    let start = 0;
    for (let line = 1; ; line++) {
      const end = bytes.indexOf(0x0a, start);
      const slice = bytes.subarray(start, end === -1 ? bytes.length : end);
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(slice);
      } catch {
        const column = slice.toString('utf8').indexOf('\uFFFD') + 1;
        return {
          issue: {
            path: '',
            line,
            column: column > 0 ? column : 1,
            message: 'is not UTF-8 here: save the file as UTF-8 (a byte no UTF-8 text holds)',
          },
        };
      }
      if (end === -1) break;
      start = end + 1;
    }
    return { issue: { path: '', line: null, column: null, message: 'is not UTF-8 text: save it as UTF-8' } };
  }
}

/** The issue at the first mapping or list nested deeper than MAX_DEPTH, or null. Iterative: a deep file must not overflow this either. */
export function depthIssue(doc: Document, lineCounter: LineCounter): ScenarioIssue | null {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: doc.contents, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > MAX_DEPTH) {
      const { line, col } = lineCounter.linePos(node.range?.[0] ?? 0);
      return {
        path: '',
        line,
        column: col,
        message: `nests more than ${MAX_DEPTH} levels deep here: a scenarios file needs about 7 (is a bracket or an indent wrong?)`,
      };
    }
    for (const item of node.items) {
      if (isPair(item)) stack.push({ node: item.value, depth: depth + 1 }, { node: item.key, depth: depth + 1 });
      else stack.push({ node: item, depth: depth + 1 });
    }
  }
  return null;
}
