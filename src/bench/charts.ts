import type { BenchResults } from './results.js';
import { type BarChart, type Chart, renderBarChart, renderChart } from './svg.js';

/** The names the throughput chart gives each target. */
const TARGET_NAMES = {
  'sqlite-queue': 'SQLite reference',
  'sqlite-raw': 'SQLite raw writes, in jobs',
  'postgres-queue': 'PostgreSQL reference',
  'postgres-raw': 'PostgreSQL raw writes, in jobs',
  pgboss: 'pg-boss',
  bullmq: 'BullMQ',
} as const;

/** One line saying when and on what the figures were taken, and whether the machine was busy. */
export function measuredOn(results: BenchResults): string {
  const m = results.machine;
  const load = m.loadAverage[0] > m.cores ? `, under load (load average ${m.loadAverage[0]} on ${m.cores} cores)` : '';
  return `${results.startedAt.slice(0, 10)}, ${m.cores} cores ${m.cpuModel}, Node ${m.node}, SQLite ${m.sqlite}${load}`;
}

/** Throughput against worker processes, a panel per backlog, every target measured. */
export function throughputChart(results: BenchResults): string | null {
  const cells = results.throughput?.cells ?? [];
  if (cells.length === 0) return null;
  const workers = [...new Set(cells.map((c) => c.workers))].sort((a, b) => a - b);
  const backlogs = [...new Set(cells.map((c) => c.backlog))].sort((a, b) => a - b);
  const targets = [...new Set(cells.map((c) => c.target))];
  const chart: Chart = {
    title: 'No-op jobs per second against worker processes',
    subtitle: measuredOn(results),
    xLabel: 'worker processes',
    categories: workers.map(String),
    yLabel: 'jobs per second (log scale)',
    scale: 'log',
    panels: backlogs.map((backlog) => ({
      title: `backlog ${backlog.toLocaleString('en-US')}`,
      series: targets.map((target) => ({
        name: TARGET_NAMES[target],
        values: workers.map((w) => {
          const cell = cells.find((c) => c.target === target && c.workers === w && c.backlog === backlog);
          return cell && cell.error === null ? cell.jobsPerSecond : null;
        }),
      })),
    })),
  };
  return renderChart(chart);
}

/** Recovery latency per stage against the lease, a panel per queue. */
export function recoveryChart(results: BenchResults): string | null {
  const rows = results.recovery?.rows ?? [];
  if (rows.length === 0) return null;
  const stages = [...new Set(rows.map((r) => r.stage))];
  const queues = [...new Set(rows.map((r) => r.queue))];
  const first = rows[0]!;
  const chart: Chart = {
    title: 'From a SIGKILL to the job claimed again, and done, by stage',
    subtitle: measuredOn(results),
    xLabel: 'stage the worker was killed at',
    categories: stages,
    yLabel: 'milliseconds after the kill',
    scale: 'linear',
    panels: queues.map((queue) => {
      const at = (stage: string) => rows.find((r) => r.queue === queue && r.stage === stage);
      return {
        title: queue,
        series: [
          { name: 'claimed again, p50', values: stages.map((s) => at(s)?.reclaimP50Ms ?? null) },
          { name: 'claimed again, p99', values: stages.map((s) => at(s)?.reclaimP99Ms ?? null) },
          { name: 'done, p50', values: stages.map((s) => at(s)?.settleP50Ms ?? null) },
          { name: 'done, p99', values: stages.map((s) => at(s)?.settleP99Ms ?? null) },
        ],
        references: [
          { name: `lease ${first.leaseMs} ms`, value: first.leaseMs },
          { name: `lease + skew margin + 100 ms = ${first.boundMs} ms`, value: first.boundMs },
        ],
      };
    }),
  };
  return renderChart(chart);
}

/** The shipped drill's scenarios, each a bar of its wall time split by where it went. */
export function drillChart(results: BenchResults): string | null {
  const drill = results.drill;
  if (!drill || drill.scenarios.length === 0) return null;
  const chart: BarChart = {
    title: `The shipped drill: ${(drill.wallMs / 1000).toFixed(1)} s, ${drill.parallel} scenarios at a time; where each scenario's time went`,
    subtitle: measuredOn(results),
    parts: [
      'provision',
      'process start-up',
      'fault waits (leases)',
      'restarts',
      'jobs and polling',
      'rest check',
      'stop',
      'evidence',
      'teardown',
      'judge',
    ],
    unit: 'ms',
    bars: drill.scenarios.map((s) => ({
      label: s.name,
      parts: [s.provisionMs, s.startupMs, s.faultWaitMs, s.restartMs, s.workMs, s.restCheckMs, s.stopMs, s.evidenceMs, s.teardownMs, s.judgeMs],
    })),
  };
  return renderBarChart(chart);
}

/** Each broken variant, a bar of the seconds explore took to catch it (or ran for, not catching it, within its cap). */
export function exploreChart(results: BenchResults): string | null {
  const catches = results.explore?.catches ?? [];
  if (catches.length === 0) return null;
  const rate = results.explore!.rate;
  const chart: BarChart = {
    title:
      `Explore: seconds to the first catch of each broken variant (seed ${catches[0]!.seed}); ` +
      `${rate.schedulesPerSecond.toFixed(2)} schedules a second on the reference`,
    subtitle: measuredOn(results),
    parts: ['to the first catch', 'ran out of its cap, not caught'],
    unit: 's',
    bars: catches.map((c) => ({
      label: `${c.variant}, ${c.schedules} schedule${c.schedules === 1 ? '' : 's'}`,
      parts: c.caught ? [c.elapsedMs / 1000, 0] : [0, c.elapsedMs / 1000],
    })),
  };
  return renderBarChart(chart);
}
