import { measuredOn } from './charts.js';
import { EXPLORE_TARGET_PER_SECOND } from './explore/rate.js';
import type { BenchResults } from './results.js';
import { millis, perSecond, renderTable, seconds, share, times } from './table.js';
import { POSTGRES_TARGETS, TARGETS } from './throughput/comparisons.js';

/** The throughput table: each queue beside its raw rate (in jobs), BullMQ and (PostgreSQL's) pg-boss, at every backlog and number of workers. */
function throughputTable(results: BenchResults): string | null {
  const rows = results.throughput?.comparisons ?? [];
  if (rows.length === 0) return null;
  const table = renderTable(
    ['store', 'backlog', 'workers', 'queue jobs/s', 'raw, in jobs/s', 'of raw', 'BullMQ jobs/s', 'of BullMQ', 'pg-boss jobs/s', 'of pg-boss'],
    rows.map((r) => [
      r.store,
      String(r.backlog),
      String(r.workers),
      perSecond(r.queueJobsPerSecond),
      perSecond(r.rawJobsPerSecond),
      share(r.ofRaw),
      perSecond(r.bullmqJobsPerSecond),
      times(r.ofBullmq),
      // Results written before pg-boss was measured have neither.
      perSecond(r.pgbossJobsPerSecond ?? null),
      times(r.ofPgboss ?? null),
    ]),
  );
  const cells = results.throughput?.cells ?? [];
  const errors = cells.filter((c) => c.error !== null).map((c) => `  ${c.target} ${c.workers} workers, backlog ${c.backlog}: ${c.error}`);
  const partial = cells
    .filter((c) => c.error === null && !c.finished)
    .map(
      (c) =>
        `  ${c.target} ${c.workers} workers, backlog ${c.backlog}: ${c.units} ${c.kind === 'raw' ? 'transactions' : 'jobs'} in ${seconds(c.elapsedMs)} s`,
    );
  const target = `Target (SQLite reference, ${TARGETS.workers} workers): at least ${share(TARGETS.ofRaw)} of raw, and ${times(TARGETS.ofBullmq)} BullMQ.`;
  const postgresTarget =
    `Target (PostgreSQL reference): at least ${share(POSTGRES_TARGETS.ofRaw)} of raw, ` +
    `and faster than pg-boss (of pg-boss above ${times(POSTGRES_TARGETS.ofPgboss)}).`;
  return [
    "Throughput: no-op jobs per second (raw: write transactions per second ÷ the queue's 2 per job)",
    table,
    target,
    ...(rows.some((r) => r.store === 'postgres') ? [postgresTarget] : []),
    ...(partial.length > 0 ? ['Cells stopped when their time ran out (the rate is over what they did by then):', ...partial] : []),
    ...(errors.length > 0 ? ['Failed cells:', ...errors] : []),
  ].join('\n');
}

/** The recovery table: per queue and stage, kill to claimed again and to done, against the bound. */
function recoveryTable(results: BenchResults): string | null {
  const rows = results.recovery?.rows ?? [];
  if (rows.length === 0) return null;
  const table = renderTable(
    ['queue', 'stage', 'kills', 'reclaim p50', 'reclaim p99', 'done p50', 'done p99', 'lease', 'bound', 'p99 within'],
    rows.map((r) => [
      r.queue,
      r.stage,
      String(r.kills),
      millis(r.reclaimP50Ms),
      millis(r.reclaimP99Ms),
      millis(r.settleP50Ms),
      millis(r.settleP99Ms),
      String(r.leaseMs),
      String(r.boundMs),
      r.reclaimP99Ms === null ? '—' : r.reclaimP99Ms <= r.boundMs ? 'yes' : 'no',
    ]),
  );
  const failed = rows.flatMap((r) => r.failedRuns.map((f) => `  ${r.queue}: ${f}`));
  const unrecovered = rows.filter((r) => r.unrecovered > 0).map((r) => `  ${r.queue} ${r.stage}: ${r.unrecovered} kills never claimed again`);
  return [
    'Recovery: ms from a SIGKILL at the stage to the job claimed again, and done (bound: lease + skew margin + 100 ms)',
    table,
    ...(failed.length > 0 ? ['Runs that did not pass:', ...failed] : []),
    ...unrecovered,
  ].join('\n');
}

/** The drill table: each scenario's wall time by where it went, and the totals. */
function drillTable(results: BenchResults): string | null {
  const drill = results.drill;
  if (!drill) return null;
  const columns = ['wall', 'provision', 'start-up', 'fault waits', 'restarts', 'jobs+polling', 'rest check', 'stop', 'evidence', 'teardown', 'judge'];
  const cells = (s: NonNullable<BenchResults['drill']>['totals']) =>
    [s.wallMs, s.provisionMs, s.startupMs, s.faultWaitMs, s.restartMs, s.workMs, s.restCheckMs, s.stopMs, s.evidenceMs, s.teardownMs, s.judgeMs].map(
      seconds,
    );
  const table = renderTable(['scenario (s)', ...columns], [...drill.scenarios.map((s) => [s.name, ...cells(s)]), ['(sum)', ...cells(drill.totals)]]);
  return [
    `The shipped drill: ${seconds(drill.wallMs)} s wall (${seconds(drill.reportDurationMs)} s of scenarios, ` +
      `${drill.parallelWhy ?? `${drill.parallel} at a time`}; ${drill.passed} passed)`,
    table,
    ...drill.notRun.map((line) => `  not run: ${line}`),
  ].join('\n');
}

/** The explore tables: schedules a second on the reference, against the target; then each broken variant's first catch. */
function exploreTable(results: BenchResults): string | null {
  const explore = results.explore;
  if (!explore) return null;
  const r = explore.rate;
  const cpu = (n: number | null) => (n === null ? '—' : seconds(n));
  const rate = renderTable(
    ['queue', 'seed', 'lanes', 'schedules', 'wall s', 'schedules/s', 'harness CPU s', 'children CPU s'],
    [
      [
        r.queue,
        String(r.seed),
        String(r.lanes),
        String(r.schedules),
        seconds(r.wallMs),
        r.schedulesPerSecond.toFixed(2),
        cpu(r.harnessCpuMs),
        cpu(r.childrenCpuMs),
      ],
    ],
  );
  const reached = r.schedulesPerSecond >= EXPLORE_TARGET_PER_SECOND ? 'reached' : 'not reached';
  const notes = [
    ...(r.cutOff > 0 ? [`  ${r.cutOff} schedule(s) cut off by the time budget, not counted`] : []),
    ...(r.violations > 0 ? [`  ${r.violations} violation(s) on the reference: a finding to look at (queue-drill explore --seed ${r.seed})`] : []),
  ];
  const sections = [
    `Explore: schedules judged a second on the SQLite reference (${r.asked} asked, ${r.vacuous} with a fault that never fired` +
      `${r.inconclusive === undefined ? '' : `, ${r.inconclusive} the machine starved past judging`})`,
    rate,
    `Target: at least ${EXPLORE_TARGET_PER_SECOND} schedules a second on the reference: ${reached}.`,
    ...notes,
  ];
  if (explore.catches.length > 0) sections.push('', firstCatchTable(explore.catches));
  return sections.join('\n');
}

/** Each broken variant: schedules and seconds to explore's first catch, and the invariant, or the cap it ran out of. */
function firstCatchTable(catches: NonNullable<BenchResults['explore']>['catches']): string {
  const [first] = catches;
  const table = renderTable(
    ['variant', 'schedules', 'seconds', 'caught by', 'lane/run'],
    catches.map((c) => [
      c.variant,
      String(c.schedules),
      seconds(c.elapsedMs),
      c.caught ? `${c.invariant}${c.declared ? '' : ' (not one it declares)'}` : 'not caught within cap',
      c.lane === null ? '—' : `${c.lane}/${c.run}`,
    ]),
  );
  const caught = catches.filter((c) => c.caught).length;
  return [
    `Explore to its first catch of each broken variant (seed ${first!.seed}, ${first!.lanes} lanes; ` +
      `cap ${first!.capSchedules} schedules or ${seconds(first!.capMs)} s): ${caught} of ${catches.length} caught`,
    table,
  ].join('\n');
}

/** Everything a bench run prints: the machine, each family's table, what was skipped, and where the files went. */
export function renderResults(results: BenchResults, files: readonly string[]): string {
  const sections = [throughputTable(results), recoveryTable(results), drillTable(results), exploreTable(results)].filter(
    (s): s is string => s !== null,
  );
  return [
    `queue-drill bench, size ${results.size}: ${measuredOn(results)}`,
    ...sections.map((s) => `\n${s}`),
    ...(results.skipped.length > 0 ? ['', 'Skipped:', ...results.skipped.map((s) => `  ${s}`)] : []),
    '',
    ...files.map((f) => `wrote ${f}`),
  ].join('\n');
}
