import { reportJsonSchema } from '../schema.js';
import type { ReportView } from './view.js';

let schemaText: string | undefined;

/** report.json: the truth every other view is made from; with report.schema.json, the JSON Schema it validates against. */
export const jsonView: ReportView<'json'> = {
  name: 'json',
  file: 'report.json',
  describe: 'the report as data, the truth the other views are made from',
  render: (report) => `${JSON.stringify(report, null, 2)}\n`,
  companions: [
    {
      file: 'report.schema.json',
      describe: 'the JSON Schema report.json validates against',
      // The same for every report: made once a process (a drill writes its report after every verdict).
      render: () => {
        schemaText ??= `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
        return schemaText;
      },
    },
  ],
};
