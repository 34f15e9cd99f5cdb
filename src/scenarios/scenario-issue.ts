import { InputError } from '../kernel/errors.js';

/** A step of a path into the data: a mapping's key or a list's index. */
export type Segment = PropertyKey;

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

/** One line per issue, `source:line:column path: message`, the form editors and terminals link. */
export function formatIssues(source: string, issues: readonly ScenarioIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.line === null ? source : `${source}:${issue.line}:${issue.column ?? 1}`;
      return issue.path === '' ? `${where}: ${issue.message}` : `${where} ${shortPath(issue.path)}: ${issue.message}`;
    })
    .join('\n');
}

/** The longest path shown whole; a longer one (a file nested absurdly deep) keeps its two ends. */
const MAX_SHOWN_PATH = 120;

function shortPath(path: string): string {
  return path.length <= MAX_SHOWN_PATH ? path : `${path.slice(0, 60)}…${path.slice(-50)}`;
}

/** `scenarios[2].faults[0].action`; a key that is not a plain word is quoted: `plans["a.b"]`. */
export function formatPath(path: readonly Segment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z0-9_-]+$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** Whole-file problems first, then in the order of the text. */
export function sortIssues(issues: ScenarioIssue[]): ScenarioIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => (a.issue.line ?? 0) - (b.issue.line ?? 0) || (a.issue.column ?? 0) - (b.issue.column ?? 0) || a.index - b.index)
    .map(({ issue }) => issue);
}
