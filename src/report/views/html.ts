import { renderHtml } from '../html/render-html.js';
import type { ReportView } from './view.js';

/** report.html: the report as a person decides from it, with a timeline per scenario, in one file that needs nothing else. */
export const htmlView: ReportView<'html'> = {
  name: 'html',
  file: 'report.html',
  describe: 'the report for people, with a timeline per scenario, as one self-contained HTML page',
  render: renderHtml,
};
