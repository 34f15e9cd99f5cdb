import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { writeAtomically } from '../kernel/write-atomically.js';
import { makeOutDir } from './out-dir.js';
import { checkReport, type DrillReport, REPORT_VERSION, ReportError } from './schema.js';
import { REPORT_VIEWS, type ReportView, type ReportViewName } from './views/index.js';

/*
 * The report on disk: every view of REPORT_VIEWS (report.json, the truth, and
 * the views made from it) with its companions (the schema report.json
 * validates against), in the run directory; and `latest` beside the run
 * directories pointing at the newest, so `drill-runs/latest/report.md` is
 * always a stable path for CI and for people. Every file is written to a
 * temporary name and renamed, and the link is replaced by renaming a new link
 * over it, so a reader never sees a half-written file or a missing link.
 */

/** The name of the link, in the run directories' parent, to the newest run. */
export const LATEST_LINK = 'latest';

/** How many drills may start in one millisecond into one folder before something is clearly wrong. */
const MAX_SAME_STAMP = 1_000;

/**
 * A new run directory under `out` (made where missing), named by the UTC time
 * `ms` (`:` made `-`, which some file systems refuse), and made here: made
 * exclusively (mkdir fails on a folder already there), so drills started in the
 * same millisecond into one `out`, in this process or another, each get their
 * own; the first takes the time alone, the next `-2`, `-3`, ... after it.
 */
export function runDirAt(out: string, ms: number): string {
  makeOutDir(out);
  const stamp = new Date(ms).toISOString().replace(/:/g, '-');
  for (let n = 1; n <= MAX_SAME_STAMP; n++) {
    const dir = join(out, n === 1 ? stamp : `${stamp}-${n}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (error) {
      if (!isCode(error, 'EEXIST')) {
        throw new ReportError('QD_REPORT_WRITE_FAILED', `could not make the run directory ${dir}: ${messageOf(error)}`, [], { cause: error });
      }
    }
  }
  throw new ReportError('QD_REPORT_WRITE_FAILED', `could not make a run directory in ${out}: ${MAX_SAME_STAMP} named ${stamp} are there already`, []);
}

/** Where writeReport put each view's file (absolute paths), keyed by view name, in the order of the views. */
export type WrittenReport<Name extends string = ReportViewName> = Readonly<Record<Name, string>>;

/**
 * The names of the files writeReport puts in a run directory for these views:
 * each view's file, then their companions. Throws (a bug in queue-drill) when
 * two views share a name or two files share a name, which would overwrite one.
 */
export function reportFiles(views: readonly ReportView[] = REPORT_VIEWS): string[] {
  const files = [...views.map((view) => view.file), ...views.flatMap((view) => (view.companions ?? []).map((companion) => companion.file))];
  const twice = (names: readonly string[]) => names.filter((name, index) => names.indexOf(name) !== index);
  const clashes = [...twice(views.map((view) => view.name)).map((name) => `view name ${name}`), ...twice(files).map((file) => `file ${file}`)];
  if (clashes.length > 0) throw new Error(`the report views clash (a bug in queue-drill): ${clashes.join(', ')} given twice`);
  return files;
}

/**
 * Validates the report, writes every registered view (report.json, report.md, junit.xml)
 * and its companions (report.schema.json) into runDir, and points `latest` at runDir.
 */
export function writeReport(runDir: string, report: DrillReport): WrittenReport;
/** The same, for these views instead of the registered ones. */
export function writeReport<Name extends string>(runDir: string, report: DrillReport, views: readonly ReportView<Name>[]): WrittenReport<Name>;
export function writeReport(runDir: string, report: DrillReport, views: readonly ReportView[] = REPORT_VIEWS): WrittenReport<string> {
  const checked = checkReport(report);
  if (!checked.ok) {
    throw new ReportError(
      'QD_REPORT_INVALID',
      `the report for ${runDir} does not validate against report schema version ${REPORT_VERSION} (a bug in queue-drill):`,
      checked.issues,
    );
  }
  reportFiles(views);
  const dir = resolve(runDir);
  // Filled in the views' order, which is the order the summary lists them in.
  const written: Record<string, string> = {};
  for (const view of views) written[view.name] = join(dir, view.file);
  try {
    mkdirSync(dir, { recursive: true });
    for (const view of views) writeAtomically(join(dir, view.file), view.render(checked.report));
    for (const companion of views.flatMap((view) => view.companions ?? []))
      writeAtomically(join(dir, companion.file), companion.render(checked.report));
  } catch (error) {
    throw new ReportError('QD_REPORT_WRITE_FAILED', `could not write the report into ${dir}: ${messageOf(error)}`, [], { cause: error });
  }
  pointLatestAt(dir);
  return written;
}

/** Reads and validates a report.json (for replay and comparisons); a clear error names the file and the path of every problem. */
export function readReport(file: string): DrillReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ReportError('QD_BAD_REPORT_FILE', `${file}: cannot read the report: ${messageOf(error)}`, [], { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ReportError('QD_BAD_REPORT_FILE', `${file}: not JSON (${messageOf(error)}); was it cut short or edited by hand?`, [], { cause: error });
  }
  // A report from another version fails on many fields; one line saying so is the useful answer.
  const version = typeof value === 'object' && value !== null && 'version' in value ? value.version : undefined;
  if (version !== REPORT_VERSION) {
    throw new ReportError(
      'QD_BAD_REPORT_FILE',
      typeof version === 'number' && version > REPORT_VERSION
        ? `${file}: report version ${version} is newer than this queue-drill reads (${REPORT_VERSION}); upgrade queue-drill to read it`
        : `${file}: not a queue-drill report of version ${REPORT_VERSION} (version: ${JSON.stringify(version) ?? 'missing'})`,
    );
  }
  const checked = checkReport(value);
  if (!checked.ok) throw new ReportError('QD_BAD_REPORT_FILE', `${file}: not a valid queue-drill report:`, checked.issues);
  return checked.report;
}

// rename(2) replaces the old link in one step; removing it first would leave a moment with no `latest`.
/** Points `latest`, beside `dir`, at `dir`. */
export function pointLatestAt(dir: string): void {
  const parent = dirname(dir);
  const link = join(parent, LATEST_LINK);
  // The newest started run keeps it: run directories are named by their start (UTC time, then -2, -3), so an older
  // drill that writes its report (as it goes, or at its end) after a newer one started does not take it back.
  if (newerRunThere(link, basename(dir))) return;
  const temporary = join(parent, `.${LATEST_LINK}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    // Relative, so the run directories can be moved or archived together and still resolve.
    symlinkSync(relative(parent, dir), temporary, 'dir');
    renameSync(temporary, link);
  } catch (error) {
    rmSync(temporary, { force: true });
    const hint =
      isCode(error, 'EISDIR') || isCode(error, 'ENOTEMPTY') || isCode(error, 'EEXIST') ? `; ${link} is a directory, not a link: move it away` : '';
    throw new ReportError('QD_REPORT_WRITE_FAILED', `could not point ${link} at ${dir}: ${messageOf(error)}${hint}`, [], { cause: error });
  }
}

/** Whether `link` points at an existing run directory named after `name` (started later). */
function newerRunThere(link: string, name: string): boolean {
  try {
    const current = readlinkSync(link);
    return basename(current) > name && existsSync(join(dirname(link), current));
  } catch {
    return false; // no link yet, or not a link: pointed below (or refused with a hint)
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
