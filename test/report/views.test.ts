import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { progressPrinter } from '../../src/cli/progress.js';
import { renderHtml } from '../../src/report/html/render-html.js';
import { renderJunit } from '../../src/report/junit.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { type DrillReport, reportJsonSchema } from '../../src/report/schema.js';
import { REPORT_VIEWS, type ReportView } from '../../src/report/views/index.js';
import { LATEST_LINK, reportFiles, writeReport } from '../../src/report/write-report.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport } from './fixture.js';

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('views');
});
afterEach(() => temp.remove());

/** A view as a later issue would add one: one object, one entry in a copy of the registry. */
const countsView: ReportView<'counts'> = {
  name: 'counts',
  file: 'counts.txt',
  describe: 'how many scenarios got each verdict',
  render: (report) => `${report.summary.passed} passed, ${report.summary.failed} failed\n`,
};

function summaryText(report: DrillReport, written: Readonly<Record<string, string>>): string {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  progressPrinter(stream, { live: false }).summary(report, written);
  return chunks.join('');
}

describe('the registry of report views', () => {
  it('holds each view once, each with its own name and its own file', () => {
    const names = REPORT_VIEWS.map((view) => view.name);
    const files = reportFiles();
    expect(names).toEqual(['json', 'markdown', 'junit', 'html']);
    expect(new Set(names).size).toBe(REPORT_VIEWS.length);
    expect(new Set(REPORT_VIEWS).size).toBe(REPORT_VIEWS.length);
    expect(files).toEqual(['report.json', 'report.md', 'junit.xml', 'report.html', 'report.schema.json']);
    expect(new Set(files).size).toBe(files.length);
    for (const view of REPORT_VIEWS) expect(view.describe.length).toBeGreaterThan(0);
  });

  it('wraps the renderers as they are: report.json as indented JSON, its schema beside it, report.md and junit.xml', () => {
    const report = drillReport();
    const [json, markdown, junit, html] = REPORT_VIEWS;
    expect(json.render(report)).toBe(`${JSON.stringify(report, null, 2)}\n`);
    expect(json.companions?.map((c) => c.file)).toEqual(['report.schema.json']);
    expect(json.companions![0]!.render(report)).toBe(`${JSON.stringify(reportJsonSchema(), null, 2)}\n`);
    expect(markdown.render(report)).toBe(renderMarkdown(report));
    expect(junit.render(report)).toBe(renderJunit(report));
    expect(html.render(report)).toBe(renderHtml(report));
  });

  it('refuses views that would overwrite one another, before writing anything', () => {
    const clash: ReportView<'notes'> = { ...countsView, name: 'notes', file: 'report.md' };
    expect(() => reportFiles([...REPORT_VIEWS, clash])).toThrow('the report views clash (a bug in queue-drill): file report.md given twice');
    expect(() => reportFiles([...REPORT_VIEWS, { ...countsView, name: 'json' }])).toThrow(/view name json given twice/);
    const runDir = join(temp.dir, 'runs', 'clash');
    expect(() => writeReport(runDir, drillReport(), [...REPORT_VIEWS, clash])).toThrow(/clash/);
    expect(() => readdirSync(join(temp.dir, 'runs'))).toThrow(/ENOENT/);
  });
});

describe('writeReport and the views', () => {
  it('writes exactly the registered files, each as its view renders it, and returns the views’ paths by name', () => {
    const runDir = join(temp.dir, 'runs', 'run-1');
    const report = drillReport();
    const written = writeReport(runDir, report);
    expect(readdirSync(runDir).sort()).toEqual(reportFiles().sort());
    expect(Object.keys(written)).toEqual(REPORT_VIEWS.map((view) => view.name));
    for (const view of REPORT_VIEWS) {
      expect(written[view.name]).toBe(join(runDir, view.file));
      expect(readFileSync(join(runDir, view.file), 'utf8')).toBe(view.render(report));
      for (const companion of view.companions ?? []) expect(readFileSync(join(runDir, companion.file), 'utf8')).toBe(companion.render(report));
    }
  });

  it('writes a view added to a copy of the registry (adding a view is one entry), and the summary lists it last', () => {
    const runDir = join(temp.dir, 'runs', 'run-1');
    const report = drillReport();
    const views = [...REPORT_VIEWS, countsView];
    const written = writeReport(runDir, report, views);

    expect(written).toEqual({
      json: join(runDir, 'report.json'),
      markdown: join(runDir, 'report.md'),
      junit: join(runDir, 'junit.xml'),
      html: join(runDir, 'report.html'),
      counts: join(runDir, 'counts.txt'),
    });
    expect(readdirSync(runDir).sort()).toEqual(reportFiles(views).sort());
    expect(readdirSync(runDir)).toContain('counts.txt');
    expect(readFileSync(written.counts, 'utf8')).toBe('1 passed, 1 failed\n');
    expect(readFileSync(join(temp.dir, 'runs', LATEST_LINK, 'counts.txt'), 'utf8')).toBe('1 passed, 1 failed\n');

    const summary = summaryText(report, written);
    expect(summary.slice(summary.indexOf('report: '))).toBe(
      `report: ${written.json}\n        ${written.markdown}\n        ${written.junit}\n        ${written.html}\n        ${written.counts}\n`,
    );
  });

  it('the summary lists the files of the registered views, in the registry’s order', () => {
    const runDir = join(temp.dir, 'runs', 'run-1');
    const written = writeReport(runDir, drillReport());
    const summary = summaryText(drillReport(), written);
    const listed = summary
      .slice(summary.indexOf('report: ') + 'report: '.length)
      .trimEnd()
      .split(/\n +/);
    expect(listed).toEqual(REPORT_VIEWS.map((view) => join(runDir, view.file)));
    expect(summary).not.toContain('report.schema.json');
  });
});
