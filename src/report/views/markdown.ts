import { renderMarkdown } from '../markdown.js';
import type { ReportView } from './view.js';

/** report.md: the report as a person reads it in a pull request or an issue. */
export const markdownView: ReportView<'markdown'> = {
  name: 'markdown',
  file: 'report.md',
  describe: 'the report for people, as GitHub-flavoured Markdown',
  render: renderMarkdown,
};
