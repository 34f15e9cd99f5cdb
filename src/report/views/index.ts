import { htmlView } from './html.js';
import { jsonView } from './json.js';
import { junitView } from './junit.js';
import { markdownView } from './markdown.js';
import type { ReportView } from './view.js';
import { withoutSecrets } from './without-secrets.js';

export type { ReportFile, ReportView } from './view.js';

/**
 * Every view writeReport writes, in the order the summary lists them. A new
 * view is one file in this folder and one entry here; each needs its own name
 * and its own file name (writeReport refuses two that share either). Each is
 * made from the report without the secrets of its command lines.
 */
export const REPORT_VIEWS = [
  withoutSecrets(jsonView),
  withoutSecrets(markdownView),
  withoutSecrets(junitView),
  withoutSecrets(htmlView),
] as const satisfies readonly ReportView[];

/** The name of a registered view. */
export type ReportViewName = (typeof REPORT_VIEWS)[number]['name'];
