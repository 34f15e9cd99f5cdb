import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { drillDemands } from '../../src/drill/drill-demands.js';
import { notJudgedReport } from '../../src/judge/not-judged.js';
import { queueImpl } from '../../src/queues/registry.js';
import { renderJunit } from '../../src/report/junit.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { DrillReportSchema, REPORT_VERSION } from '../../src/report/schema.js';
import { summarize } from '../../src/report/verdict.js';
import { loadScenarioFile } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';

const ROOT = join(import.meta.dirname, '..', '..');
const [scenario] = resolveScenarios(loadScenarioFile(join(ROOT, 'scenarios.yaml')), { seed: 1, only: ['poison-job-coordinated'] });

describe('what a scenario asks of its queue', () => {
  it("says the lease, each job's budget, the retry policy, the roles, the tools and the armed points", () => {
    const demands = drillDemands(scenario!);
    expect(demands.leaseMs).toBe(scenario!.settings.lease_ms);
    expect(demands.maxAttempts).toEqual(scenario!.jobs.map((j) => j.maxAttempts));
    expect(demands.retryDelay.baseMs).toBe(scenario!.settings.retry.base_ms);
    expect(demands.coordinator).toBe(true);
    expect(demands.tools.length).toBeGreaterThan(0);
    expect(demands.points).toEqual([...new Set(scenario!.pointFaults.map((f) => f.point))].sort());
  });
});

describe('a scenario its queue refused', () => {
  const reason = 'a lease of 400 ms is below the queue’s minimum of 1 s';
  const entry = notJudgedReport(scenario!, queueImpl('reference'), reason, { repeat: 1, replay: 'queue-drill run …', runDir: '/tmp/x' });

  it('is not judged with the reason, every invariant with it, and nothing held or broken', () => {
    expect(entry.verdict).toBe('not_judged');
    expect(entry.notJudged).toBe(reason);
    expect(entry.invariants.length).toBe(scenario!.invariants.length);
    for (const v of entry.invariants) {
      expect(v.status).toBe('not_judged');
      expect(v.note).toContain(reason);
    }
  });

  /** The report of a drill of this one scenario, with the exit code given. */
  const reportOf = (exitCode: 0 | 1) => ({
    version: REPORT_VERSION,
    tool: 'queue-drill' as const,
    toolVersion: '0.0.0',
    command: 'queue-drill run',
    file: 'scenarios.yaml',
    queue: 'reference',
    seed: 1,
    timeScale: 1,
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:00:01.000Z',
    durationMs: 1000,
    exitCode,
    summary: summarize([entry]),
    scenarios: [entry],
    interruption: null,
  });

  it('makes a report the schema accepts, with an exit code that is not success when nothing ran', () => {
    expect(reportOf(1).summary.notJudged).toBe(1);
    expect(DrillReportSchema.safeParse(reportOf(0)).success).toBe(false);
    expect(DrillReportSchema.safeParse(reportOf(1)).success).toBe(true);
  });

  it('shows the reason in Markdown and as one skipped JUnit case, never as a pass or a failure', () => {
    const report = DrillReportSchema.parse(reportOf(1));
    expect(renderMarkdown(report)).toContain('Not judged: the queue cannot run this scenario as asked.');
    const junit = renderJunit(report);
    expect(junit).not.toContain('<failure');
    expect(junit).toMatch(/<skipped message="not judged: a lease of 400 ms/);
    // Nothing ran, so nothing else of it is a test: no skipped case per invariant.
    expect(junit.match(/<testcase /g)).toHaveLength(1);
  });
});
