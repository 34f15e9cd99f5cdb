import type { ScenarioReport } from '../schema.js';
import { escapeHtml as h } from './escape.js';

/*
 * A scenario's logs as links from report.html. report.html is written in the
 * drill's run directory, and each scenario's directory is a child of it
 * (`<run>/<scenario>`, `.2` for a repeat, `.retry1` for a retry; merge copies
 * them so); a report lists a log by its name in that directory, or by a path
 * that begins with the scenario's directory. So a log's address is its
 * scenario directory's name, then its name there: relative, so the run
 * directory can be moved, zipped or attached to a CI run whole.
 */

/** The last part of a path, either separator. */
function lastPart(path: string): string {
  return (
    path
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .at(-1) ?? path
  );
}

/** A log's name in its scenario's directory. */
export function logName(scenario: Pick<ScenarioReport, 'runDir'>, log: string): string {
  const dir = scenario.runDir.replace(/[\\/]+$/, '');
  if (log.startsWith(`${dir}/`) || log.startsWith(`${dir}\\`)) return log.slice(dir.length + 1);
  // A path from elsewhere (a hand-made report): the file's own name is all that can be found beside report.html.
  return /^([a-zA-Z]:)?[\\/]/.test(log) ? lastPart(log) : log;
}

/** A log's address relative to report.html. */
export function logHref(scenario: Pick<ScenarioReport, 'runDir'>, log: string): string {
  return [lastPart(scenario.runDir), ...logName(scenario, log).split(/[\\/]/)].map(encodeURIComponent).join('/');
}

/** A log as a link, its name as the text. */
export function logLink(scenario: Pick<ScenarioReport, 'runDir'>, log: string): string {
  return `<a class="log" href="${h(logHref(scenario, log))}"><code>${h(logName(scenario, log))}</code></a>`;
}

/** Every log of a scenario, as links in one line; '' when it has none. */
export function logsLine(scenario: Pick<ScenarioReport, 'runDir' | 'artefacts'>): string {
  const logs = scenario.artefacts.logs;
  if (logs.length === 0) return '';
  return `<p class="meta logs">Logs: ${logs.map((log) => logLink(scenario, log)).join(' ')}</p>`;
}
