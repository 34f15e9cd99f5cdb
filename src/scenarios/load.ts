import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { crossFileIssues } from './cross-checks.js';
import { explainIssue, markIssue } from './explain-issue.js';
import { decodeUtf8, depthIssue, sizeIssue } from './file-limits.js';
import { formatPath, ScenarioFileError, type ScenarioIssue, sortIssues } from './scenario-issue.js';
import { type ScenarioFile, ScenarioFileShape } from './schema.js';
import { aliasIssue, locate, yamlIssue } from './yaml-positions.js';

export { formatIssues, ScenarioFileError, type ScenarioIssue } from './scenario-issue.js';

/*
 * scenarios.yaml is read once, here, at the boundary. A file is refused with
 * every problem at once, each with its path, its line and column, and what is
 * allowed instead, so one run of queue-drill is enough to fix a file.
 *
 * Zod says what is wrong and where in the data (reworded for a person editing
 * YAML in explain-issue.ts); the YAML document says where that is in the text
 * (yaml-positions.ts).
 */

/** Reads and validates a scenarios file; throws ScenarioFileError, for a missing file too. */
export function loadScenarioFile(path: string): ScenarioFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? `no such file (looked for ${resolve(path)})`
        : code === 'EISDIR'
          ? 'is a directory, not a scenarios file'
          : `cannot be read: ${(error as Error).message}`;
    throw new ScenarioFileError(path, [{ path: '', line: null, column: null, message: why }], { cause: error });
  }
  const tooBig = sizeIssue(bytes.length);
  if (tooBig) throw new ScenarioFileError(path, [tooBig]);
  const decoded = decodeUtf8(bytes);
  if ('issue' in decoded) throw new ScenarioFileError(path, [decoded.issue]);
  return parseScenarioText(decoded.text, path);
}

/** Parses and validates scenarios.yaml text; `source` names it in messages (a path, usually). */
export function parseScenarioText(text: string, source: string): ScenarioFile {
  if (text.replace(/^\uFEFF/, '').trim() === '') {
    throw new ScenarioFileError(source, [
      {
        path: '',
        line: null,
        column: null,
        message: 'is empty: a scenarios file holds `version: 1` and a list of `scenarios:` (see scenarios.schema.json)',
      },
    ]);
  }
  const lineCounter = new LineCounter();
  // Duplicate keys are errors (uniqueKeys defaults to true); an unknown tag is a warning, refused too.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const yamlProblems = [...doc.errors, ...doc.warnings];
  if (yamlProblems.length > 0) throw new ScenarioFileError(source, sortIssues(yamlProblems.map((problem) => yamlIssue(doc, lineCounter, problem))));
  const tooDeep = depthIssue(doc, lineCounter);
  if (tooDeep) throw new ScenarioFileError(source, [tooDeep]);

  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // toJS throws for an alias to an anchor defined later or nowhere, or past maxAliasCount.
    throw new ScenarioFileError(source, [aliasIssue(doc, lineCounter, error)], { cause: error });
  }

  // The shape and the references side by side: every problem of the file in one report, whichever layer finds it.
  const result = ScenarioFileShape.safeParse(data, { reportInput: true, error: markIssue });
  const found = [...(result.success ? [] : result.error.issues.flatMap((issue) => explainIssue(issue, []))), ...crossFileIssues(data)];
  if (result.success && found.length === 0) return result.data;
  const seen = new Set<string>();
  const issues: ScenarioIssue[] = [];
  for (const { path, message } of found) {
    const id = `${formatPath(path)}\u0000${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push({ path: formatPath(path), ...locate(doc, lineCounter, path), message });
  }
  throw new ScenarioFileError(source, sortIssues(issues));
}
