import type { FailpointName } from '../../faults/points.js';

/** The lease and skew margin the recovery scenarios run with: the shipped drill's. */
export const RECOVERY_LEASE_MS = 400;
export const RECOVERY_SKEW_MARGIN_MS = 50;

/** How many workers a recovery scenario kills per run (one job each); as many others stay alive to take their jobs back. */
export const KILLS_PER_RUN = 2;

/** A scenario's name for the stage its worker is killed at. */
export const stageScenario = (stage: FailpointName) => `kill-${stage.replaceAll('_', '-')}`;

const WRITE_FILE = {
  steps: [
    {
      step_id: 'write',
      tool: 'write_file',
      args: { path: 'src/billing.py', content: 'fixed' },
      has_side_effect: true,
      idempotent: true,
      reversible: true,
      retry_policy: 'auto',
      compensation: 'restore_file_version',
      requires_approval: false,
    },
  ],
};

/**
 * The recovery family's scenarios file, one scenario per stage: four workers
 * and four one-step jobs; the workers that take the first KILLS_PER_RUN jobs
 * are SIGKILLed at the stage on their first attempt (and restarted, as in the
 * shipped drill), so the others are alive, and idle, when the dead holders'
 * leases expire. A kill at `heartbeat` needs a lease renewal during the job:
 * the world holds each killed job's first write call a while.
 */
export function recoveryScenarios(stages: readonly FailpointName[]): Record<string, unknown> {
  const victims = Array.from({ length: KILLS_PER_RUN }, (_, i) => i + 1);
  return {
    version: 1,
    defaults: { lease_ms: RECOVERY_LEASE_MS, skew_margin_ms: RECOVERY_SKEW_MARGIN_MS, call_timeout_ms: 300, no_progress_ms: 4000, timeout_ms: 20000 },
    plans: { 'write-file': WRITE_FILE },
    scenarios: stages.map((stage) => ({
      name: stageScenario(stage),
      description: `The workers holding jobs ${victims.join(' and ')} are SIGKILLed at ${stage} on their first attempt; the others take the jobs back.`,
      workers: 2 * KILLS_PER_RUN,
      jobs: [{ plan: 'write-file', count: 2 * KILLS_PER_RUN, expect: 'done' }],
      faults: victims.flatMap((job) => [
        ...(stage === 'heartbeat' ? [{ world: { step: 'write', job }, action: 'delay', ms: 250, applied: true, times: 1 }] : []),
        { at: stage, action: 'crash', where: { job, attempt: 1 } },
      ]),
    })),
  };
}
