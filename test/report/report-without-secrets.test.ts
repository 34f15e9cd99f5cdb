import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeShards } from '../../src/report/merge-shards.js';
import { reportWithoutSecrets } from '../../src/report/report-without-secrets.js';
import type { DrillReport } from '../../src/report/schema.js';
import { REPORT_VIEWS } from '../../src/report/views/index.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport } from './fixture.js';

const TOKEN = 'flagTok8Rb66mYcQ';
const PG_PASSWORD = 'pgFlagPw7Qx91zLm';
const QUEUE = `process:python3 q.py --auth-token ${TOKEN}`;

/** The fixture's report as a queue-drill without redaction wrote it: a process queue's token and a server's password in clear. */
function reportWithSecrets(): DrillReport {
  const report = drillReport();
  report.command = `queue-drill run scenarios.yaml --queue '${QUEUE}' --pg-url postgres://app:${PG_PASSWORD}@db/q`;
  report.queue = QUEUE;
  for (const scenario of report.scenarios) {
    scenario.queue = QUEUE;
    scenario.replay = `queue-drill run scenarios.yaml --only ${scenario.name} --queue '${QUEUE}'`;
  }
  // An error that quotes the queue's command, as the process adapter's do.
  report.scenarios[3]!.error = `python3 q.py --auth-token ${TOKEN} could not provision a queue`;
  return report;
}

describe('reportWithoutSecrets', () => {
  it('leaves a report with no secret as it is', () => {
    const report = drillReport();
    expect(reportWithoutSecrets(report)).toBe(report);
  });

  it('takes the secrets of its command lines out of every view, and out of a text that repeats one', () => {
    const report = reportWithSecrets();
    for (const view of REPORT_VIEWS) {
      const text = view.render(report);
      expect(text, view.file).not.toContain(TOKEN);
      expect(text, view.file).not.toContain(PG_PASSWORD);
    }
    const clean = reportWithoutSecrets(report);
    expect(clean.queue).toBe('process:python3 q.py --auth-token [REDACTED]');
    expect(clean.scenarios[3]!.error).toBe('python3 q.py --auth-token [REDACTED] could not provision a queue');
    // The report it was given is not changed.
    expect(report.queue).toBe(QUEUE);
  });
});

describe('merge', () => {
  let temp: ReturnType<typeof tempRunDir>;
  beforeEach(() => {
    temp = tempRunDir('merge-secrets');
  });
  afterEach(() => temp.remove());

  it('passes on no secret of a shard written in clear', () => {
    const shard = reportWithSecrets();
    shard.shard = { index: 1, count: 1, order: shard.scenarios.map((s) => `${s.name}#${s.repeat}`) };
    const dir = join(temp.dir, 'shard');
    mkdirSync(dir);
    writeFileSync(join(dir, 'report.json'), JSON.stringify(shard));
    const { report, written } = mergeShards({ inputs: [dir], out: join(temp.dir, 'merged'), command: 'queue-drill merge shard' });
    expect(JSON.stringify(report)).not.toContain(TOKEN);
    for (const file of Object.values(written)) {
      expect(readFileSync(file, 'utf8'), file).not.toContain(TOKEN);
      expect(readFileSync(file, 'utf8'), file).not.toContain(PG_PASSWORD);
    }
  });
});
