import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runDrill } from '../../drill/run-drill.js';
import type { FailpointName } from '../../faults/points.js';
import { toolVersion } from '../../kernel/version.js';
import type { ScenarioReport } from '../../report/schema.js';
import type { ServerCheck } from '../servers.js';
import type { SizePlan } from '../sizes.js';
import { percentile } from '../stats.js';
import { KILLS_PER_RUN, RECOVERY_LEASE_MS, RECOVERY_SKEW_MARGIN_MS, recoveryScenarios, stageScenario } from './scenarios.js';

/** What the recovery target allows beyond the lease and its skew margin. */
export const RECOVERY_SLACK_MS = 100;

/** One stage on one queue: how long after each SIGKILL the job was claimed again, and done, against the lease. */
export interface RecoveryRow {
  queue: 'sqlite' | 'postgres';
  stage: FailpointName;
  kills: number;
  /** Kills after which the job was never claimed again. */
  unrecovered: number;
  reclaimP50Ms: number | null;
  reclaimP99Ms: number | null;
  settleP50Ms: number | null;
  settleP99Ms: number | null;
  leaseMs: number;
  skewMarginMs: number;
  /** The lease, the skew margin and RECOVERY_SLACK_MS: what p99 to reclaim must stay within. */
  boundMs: number;
  /** The runs of the stage's scenario that did not pass (their verdicts), or none. */
  failedRuns: string[];
}

/** The recovery family's results. */
export interface RecoveryResults {
  rows: RecoveryRow[];
  skipped: string[];
}

const QUEUE_IMPL = { sqlite: 'reference', postgres: 'postgres' } as const;

/**
 * Kills workers at each stage, through the drill itself: a scenarios file with
 * a crash fault per stage, run with --repeat until each stage has its kills,
 * one scenario at a time (recovery times on a shared machine are the figure),
 * on each queue. The times are the drill's own (each scenario report's
 * `recovery`: from the kill to the job's next claim, and to its settling).
 */
export async function runRecovery(
  plan: SizePlan['recovery'],
  context: { dir: string; servers: ServerCheck; signal: AbortSignal; onLine?: (line: string) => void },
): Promise<RecoveryResults> {
  const file = join(context.dir, 'recovery.scenarios.yaml');
  writeFileSync(file, stringify(recoveryScenarios(plan.stages)));
  const rows: RecoveryRow[] = [];
  const skipped: string[] = [];
  for (const queue of plan.queues) {
    if (queue === 'postgres' && context.servers.postgres !== null) {
      skipped.push(`recovery on postgres: ${context.servers.postgres}`);
      context.onLine?.(`skipped recovery on postgres: ${context.servers.postgres}`);
      continue;
    }
    const { report } = await runDrill({
      file,
      only: [],
      seed: 1,
      repeat: Math.ceil(plan.killsPerStage / KILLS_PER_RUN),
      parallel: 1,
      out: join(context.dir, `recovery-${queue}`),
      queue: QUEUE_IMPL[queue],
      signal: context.signal,
      command: `queue-drill bench (recovery on ${queue})`,
      toolVersion: toolVersion(),
      onScenario: (event) => {
        if (event.phase === 'done') context.onLine?.(`recovery ${queue} ${event.report.name} #${event.report.repeat}: ${event.report.verdict}`);
      },
    });
    for (const stage of plan.stages) rows.push(stageRow(queue, stage, report.scenarios));
  }
  return { rows, skipped };
}

/** One stage's figures from every run of its scenario. */
function stageRow(queue: RecoveryRow['queue'], stage: FailpointName, scenarios: readonly ScenarioReport[]): RecoveryRow {
  const runs = scenarios.filter((s) => s.name === stageScenario(stage));
  const kills = runs.flatMap((run) => run.recovery.filter((r) => r.point === stage && r.jobId !== null));
  const reclaim = kills.flatMap((k) => (k.killToReclaimMs === null ? [] : [k.killToReclaimMs]));
  const settle = kills.flatMap((k) => (k.killToSettledMs === null ? [] : [k.killToSettledMs]));
  return {
    queue,
    stage,
    kills: kills.length,
    unrecovered: kills.length - reclaim.length,
    reclaimP50Ms: percentile(reclaim, 50),
    reclaimP99Ms: percentile(reclaim, 99),
    settleP50Ms: percentile(settle, 50),
    settleP99Ms: percentile(settle, 99),
    leaseMs: RECOVERY_LEASE_MS,
    skewMarginMs: RECOVERY_SKEW_MARGIN_MS,
    boundMs: RECOVERY_LEASE_MS + RECOVERY_SKEW_MARGIN_MS + RECOVERY_SLACK_MS,
    failedRuns: runs.filter((run) => run.verdict !== 'pass').map((run) => `${run.name} #${run.repeat}: ${run.verdict}`),
  };
}
