import { renderJunit } from '../junit.js';
import type { ReportView } from './view.js';

/** junit.xml: the report as the test views of GitHub, GitLab and Jenkins read it. */
export const junitView: ReportView<'junit'> = {
  name: 'junit',
  file: 'junit.xml',
  describe: 'the report for CI test views, as JUnit XML',
  render: renderJunit,
};
