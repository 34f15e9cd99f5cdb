import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { writeAtomically } from '../kernel/write-atomically.js';
import { pointLatestAt } from '../report/write-report.js';
import { renderCompareHtml } from './html.js';
import { renderCompareJunit } from './junit.js';
import { renderCompareMarkdown } from './markdown.js';
import { type CompareReport, CompareReportSchema } from './schema.js';

/** The files of a comparison, by what they hold. */
export interface WrittenCompare {
  json: string;
  schema: string;
  markdown: string;
  junit: string;
  html: string;
}

/**
 * Validates the comparison and writes compare.json (with compare.schema.json
 * beside it), compare.md, junit.xml and compare.html into `dir`; `latest` beside it points at it.
 */
export function writeCompare(dir: string, report: CompareReport): WrittenCompare {
  const checked = CompareReportSchema.parse(report);
  const at = resolve(dir);
  mkdirSync(at, { recursive: true });
  const written: WrittenCompare = {
    json: join(at, 'compare.json'),
    schema: join(at, 'compare.schema.json'),
    markdown: join(at, 'compare.md'),
    junit: join(at, 'junit.xml'),
    html: join(at, 'compare.html'),
  };
  const { $schema, ...schema } = z.toJSONSchema(CompareReportSchema, { target: 'draft-07' });
  writeAtomically(written.json, `${JSON.stringify(checked, null, 2)}\n`);
  writeAtomically(written.schema, `${JSON.stringify({ $schema, ...schema }, null, 2)}\n`);
  writeAtomically(written.markdown, renderCompareMarkdown(checked));
  writeAtomically(written.junit, renderCompareJunit(checked));
  writeAtomically(written.html, renderCompareHtml(checked, at));
  pointLatestAt(at);
  return written;
}
