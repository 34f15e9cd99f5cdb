import { reportWithoutSecrets } from '../report-without-secrets.js';
import type { ReportView } from './view.js';

/** The view, and its companions, made from the report without the secrets of its command lines (../report-without-secrets.ts). */
export function withoutSecrets<Name extends string>(view: ReportView<Name>): ReportView<Name> {
  return {
    ...view,
    render: (report) => view.render(reportWithoutSecrets(report)),
    ...(view.companions
      ? { companions: view.companions.map((companion) => ({ ...companion, render: (report) => companion.render(reportWithoutSecrets(report)) })) }
      : {}),
  };
}
