import { setTimeout as sleep } from 'node:timers/promises';
import type { QueueConnection } from '../../port/adapter.js';
import type { JobSnapshot } from '../../port/snapshot.js';
import { approveStep } from '../../saga/approve.js';
import type { ResolvedScenario } from '../resolve.js';
import type { Timeline } from '../timeline.js';
import type { DrillProcesses } from './drill-processes.js';
import type { ProducerRelease } from './producer-release.js';
import type { RoleSpec } from './role-args.js';
import { atRest, quietMs, RestWatch, StallWatch, Watchdog } from './rest.js';

/** Why a drill stopped. */
export type DrillEnding = 'at-rest' | 'no-progress' | 'timeout' | 'interrupted' | 'harness-error';

/** What the supervision loop watches and acts on. */
export interface Supervised {
  scenario: ResolvedScenario;
  queue: QueueConnection;
  processes: DrillProcesses;
  /** Lets the producers go together once each is ready. */
  producerRelease: ProducerRelease;
  timeline: Timeline;
  /** Processes a fault holds right now. */
  held(): number;
  signal: AbortSignal;
  /** When the drill must end at the latest (epoch ms). */
  deadline: number;
  /** The producers that enqueue every key again, started once (`enqueue_again`); none when the scenario has none. */
  again: readonly RoleSpec[];
}

/**
 * Watches a running drill every few milliseconds: restarts what died, lets the
 * producers go together once they are all ready, approves what waits for a
 * person (a recorded action), and ends it once the system has stayed at rest
 * for a quiet moment, or when nothing has changed for no_progress_ms (the
 * watchdog), or at the deadline, or on an interrupt.
 */
export async function supervise(drill: Supervised): Promise<DrillEnding> {
  const settings = drill.scenario.settings;
  const watchdog = new Watchdog(settings.no_progress_ms);
  const rest = new RestWatch(quietMs(settings));
  const stalls = new StallWatch();
  let deadline = drill.deadline;
  let forgiven = 0;
  let again = drill.again.length === 0;
  for (;;) {
    if (drill.signal.aborted) return 'interrupted';
    const now = Date.now();
    const paused = stalls.pausedBefore(now);
    // At most one timeout's worth of pauses is forgiven: a harness that keeps stalling must still end.
    if (paused > 0 && forgiven + paused <= settings.timeout_ms) {
      forgiven += paused;
      deadline += paused;
      watchdog.restart(now);
      rest.reset();
      drill.timeline.record(
        'stall',
        `the harness did not run for ${paused} ms (the machine or the harness was paused): the watchdog and the deadline do not count it`,
      );
    }
    if (now >= deadline) return 'timeout';
    await drill.processes.tend(now);
    drill.producerRelease.tend((name) => drill.processes.hasExited(name), now);
    // One read of the jobs a tick, for the approvals and the rest check alike.
    const { jobs } = await drill.queue.snapshot({ history: false });
    if (settings.approve) await approveWaiting(drill, jobs);
    if (watchdog.stuck(`${await drill.queue.progress()}:${drill.timeline.events.length}`, now)) {
      drill.timeline.record('watchdog', `no progress for ${settings.no_progress_ms} ms`);
      return 'no-progress';
    }
    const state = {
      jobs,
      expectedJobs: drill.scenario.jobs.length,
      held: drill.held(),
      producing: drill.processes.producing,
      restarting: drill.processes.restarting,
      approve: settings.approve,
    };
    if (!again && dueAgain(drill, jobs, atRest(state))) {
      again = true;
      rest.reset();
      drill.timeline.record('enqueue-again', `${settings.enqueue_again}: ${drill.again.map((s) => s.name).join(', ')} enqueue every key again`);
      for (const spec of drill.again) drill.processes.start(spec);
      continue;
    }
    if (rest.settled(atRest(state), now)) return 'at-rest';
    await sleep(5);
  }
}

/** Whether the producers should enqueue every key again now: a job is running, or the drill is at rest (every job ended). */
function dueAgain(drill: Supervised, jobs: readonly JobSnapshot[], resting: boolean): boolean {
  const when = drill.scenario.settings.enqueue_again;
  if (when === 'while_running') return jobs.some((job) => job.status === 'running');
  return when === 'after_done' && resting && jobs.length > 0;
}

/** The harness's own person: approves every prepared step waiting for one, on the timeline. */
async function approveWaiting(drill: Supervised, jobs: readonly JobSnapshot[]): Promise<void> {
  for (const job of jobs) {
    if (job.status !== 'review' || job.outcome !== 'awaiting_approval') continue;
    const step = await approveStep(drill.queue, job.id, 'drill', job);
    drill.timeline.record('approve', `job ${job.id} step ${step} approved by drill (a recorded human action)`, undefined, { job: job.id, step });
  }
}
