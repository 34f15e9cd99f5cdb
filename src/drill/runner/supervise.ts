import { setTimeout as sleep } from 'node:timers/promises';
import type { DrillEnding } from '../../judge/drill-record.js';
import { withDeadline } from '../../kernel/deadline.js';
import { DRILL_APPROVER } from '../../kernel/drill-approver.js';
import { HarnessError } from '../../kernel/errors.js';
import type { QueueConnection } from '../../port/adapter.js';
import type { JobSnapshot } from '../../port/snapshot.js';
import { approveStep } from '../../saga/approve.js';
import type { ResolvedScenario } from '../../scenarios/resolve.js';
import type { Timeline } from '../timeline.js';
import type { DrillProcesses } from './drill-processes.js';
import type { HostedProducer } from './hosted-producer.js';
import type { ProducerRelease } from './producer-release.js';
import { atRest, quietMs, RestWatch, StallWatch, Watchdog } from './rest.js';
import type { RestartWindow } from './restart-window.js';
import type { RoleSpec } from './role-args.js';
import { SecondWave } from './second-wave.js';

/** How long one read of the queue by the harness may take (a whole snapshot, on a loaded machine) before it counts as no answer. */
const READ_DEADLINE_MS = 5_000;
/** The same for a queue with no server (embedded, or a child process that times its own requests out). */
const OWN_PROCESS_READ_DEADLINE_MS = 60_000;

/** What the supervision loop watches and acts on. */
export interface Supervised {
  scenario: ResolvedScenario;
  queue: QueueConnection;
  /** Whether the queue lives on a server of its own (its adapter needs one): a read of it may wait on the network. */
  onServer: boolean;
  processes: DrillProcesses;
  /** Lets the producers go together once each is ready. */
  producerRelease: ProducerRelease;
  /** The scenario's producer when the harness runs it (./hosted-producer.ts): started at the release. */
  hostedProducer?: HostedProducer;
  timeline: Timeline;
  /** Processes a fault holds right now. */
  held(): number;
  signal: AbortSignal;
  /**
   * When the drill must end at the latest if its producers are never let go (epoch ms): a drill whose processes
   * never start still ends. Once they are let go, the deadline is their release plus the scenario's timeout_ms:
   * the time a busy machine takes to start processes is not the queue's.
   */
  deadline: number;
  /** The producers that enqueue every key again, started once (`enqueue_again`); none when the scenario has none. */
  again: readonly RoleSpec[];
  /** When the scenario's own fault restarts the queue's server: the outages it may cause. */
  restarts: RestartWindow;
}

/**
 * Watches a running drill every few milliseconds: restarts what died, lets the
 * producers go together once they are all ready, approves what waits for a
 * person (a recorded action), and ends it once the system has stayed at rest
 * for a quiet moment, or when nothing has changed for no_progress_ms (the
 * watchdog), or at the deadline (timeout_ms from the producers' release), or
 * on an interrupt.
 */
export async function supervise(drill: Supervised): Promise<DrillEnding> {
  const settings = drill.scenario.settings;
  const watchdog = new Watchdog(settings.no_progress_ms);
  const rest = new RestWatch(quietMs(settings));
  const stalls = new StallWatch();
  const wave = new SecondWave(drill.again, settings.timeout_ms);
  let deadline = drill.deadline;
  let forgiven = 0;
  let again = drill.again.length === 0;
  const onServer = drill.onServer;
  // A queue of its own process waits for its answers itself (at least 10 s, 25 leases), and its error says more: a bound only.
  const readDeadlineMs =
    (onServer ? READ_DEADLINE_MS : Math.max(OWN_PROCESS_READ_DEADLINE_MS, 30 * settings.lease_ms)) * (drill.scenario.timeScale ?? 1);
  const outage = new QueueOutage(settings.no_progress_ms, readDeadlineMs, onServer);
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
    // The second wave's start-up is not the queue's either (second-wave.ts): the deadline moves on by it.
    deadline += wave.moveBy(now, paused, (name) => drill.processes.startingNamed(name));
    if (now >= deadline) return 'timeout';
    await drill.processes.tend(now);
    drill.processes.tendReadiness();
    const went = tendRelease(drill, now);
    if (went !== null) {
      // The drill proper begins: its deadline counts from here (pauses forgiven before it are part of the start).
      deadline = went + settings.timeout_ms;
      watchdog.restart(now);
    }
    if (drill.hostedProducer?.error) throw new HarnessError('QD_HOSTED_PRODUCER_FAILED', drill.hostedProducer.error);
    // Processes still starting (the producers not all connected yet, a worker restarted after a kill and not yet up,
    // a producer enqueue_again started that has not said its first line)
    // are the machine's time, not the queue's: on a loaded machine a start can take seconds (a soak under a load of
    // 20 saw 2.9 s), and the queue cannot make progress before its jobs are enqueued or while its only worker loads.
    if (drill.producerRelease.waiting || drill.processes.starting) watchdog.restart(now);
    // One read of the jobs a tick, for the approvals and the rest check alike.
    const read = await outage.read(drill, now);
    if (read === null) {
      // The wait for an answer was the queue's outage, not a pause of the harness.
      stalls.mark(Date.now());
      await sleep(settings.tick_ms);
      continue;
    }
    const { jobs, progress } = read;
    if (settings.approve) await approveWaiting(drill, jobs);
    if (watchdog.stuck(`${progress}:${drill.timeline.events.length}`, now)) {
      drill.timeline.record('watchdog', `no progress for ${settings.no_progress_ms} ms`);
      return 'no-progress';
    }
    const state = {
      jobs,
      expectedJobs: drill.scenario.jobs.length,
      held: drill.held(),
      producing: drill.processes.producing || (drill.hostedProducer?.producing ?? false),
      restarting: drill.processes.restarting,
      approve: settings.approve,
    };
    if (!again && dueAgain(drill, jobs, atRest(state))) {
      again = true;
      rest.reset();
      startSecondWave(drill, wave, now);
      continue;
    }
    if (rest.settled(atRest(state), now)) return 'at-rest';
    await sleep(5);
  }
}

/** Lets the producers go once they are ready; on the tick they went (the harness's own producer starts then), when they went. */
function tendRelease(drill: Supervised, now: number): number | null {
  const released = drill.producerRelease.releasedAt;
  // The harness's own producer goes once the processes started with it are up, as producer processes go once each
  // is: the drill proper (its deadline, its timeline's 0 s) begins then, the start-up being the machine's time.
  if (!(drill.hostedProducer && drill.processes.starting)) drill.producerRelease.tend((name) => drill.processes.hasExited(name), now);
  if (released !== null || drill.producerRelease.releasedAt === null) return null;
  drill.hostedProducer?.start();
  return drill.producerRelease.releasedAt;
}

/**
 * The harness's reads of the queue through a server that went away (the
 * restart_server fault, a server that crashed): a failed read is a note on
 * the timeline and another try next tick, for as long as the watchdog would
 * wait for progress; a server that stays away past that is the harness's error.
 */
/**
 * The harness's read of the queue, each tick, with a deadline (a frozen server
 * never answers). An outage while the scenario's own fault restarts the server
 * is waited out, for up to `patienceMs`; any other outage longer than a moment
 * is the harness's world failing: a HarnessError naming it ends the drill as an
 * error, never judged as the queue's.
 */
class QueueOutage {
  private since: number | null = null;

  constructor(
    private readonly patienceMs: number,
    private readonly readDeadlineMs: number,
    /** Whether the queue lives on a server: then an outage is the harness's world failing; else it is the queue's own process. */
    private readonly onServer: boolean,
  ) {}

  async read(drill: Supervised, now: number): Promise<{ jobs: JobSnapshot[]; progress: string } | null> {
    try {
      const read = async () => ({ jobs: (await drill.queue.snapshot({ history: false })).jobs, progress: await drill.queue.progress() });
      const answer = await withDeadline(read(), this.readDeadlineMs, "the harness's read of the queue");
      if (this.since !== null) drill.timeline.record('note', `the queue answers the harness again after ${now - this.since} ms`);
      this.since = null;
      return answer;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.since === null) {
        this.since = now;
        drill.timeline.record('note', `the queue did not answer the harness (${message}); trying again`);
      }
      // Counted to now, not to this tick's start: a read that waited out its deadline is an outage that long already.
      const lasted = Date.now() - this.since;
      const restarting = drill.restarts.covers(now, this.patienceMs);
      if (restarting && lasted > this.patienceMs) throw error;
      if (!restarting && lasted > UNEXPLAINED_OUTAGE_MS) {
        const since = new Date(this.since).toISOString();
        throw this.onServer
          ? new HarnessError(
              'QD_QUEUE_SERVER_LOST',
              `the queue's server stopped answering the harness at ${since} (${message}), and no fault of this scenario restarted it: ` +
                "the harness's world failed under the drill, so nothing of the queue is judged",
            )
          : new HarnessError('QD_QUEUE_LOST', `the queue stopped answering the harness at ${since}: ${message}`);
      }
      return null;
    }
  }
}

/** How long the harness's reads may fail, with no restart of the scenario's to explain it, before the server counts as lost. */
const UNEXPLAINED_OUTAGE_MS = 1_000;

/** Whether the producers should enqueue every key again now: a job is running, or the drill is at rest (every job ended). */
function dueAgain(drill: Supervised, jobs: readonly JobSnapshot[], resting: boolean): boolean {
  const when = drill.scenario.settings.enqueue_again;
  if (when === 'while_running') return jobs.some((job) => job.status === 'running');
  return when === 'after_done' && resting && jobs.length > 0;
}

/** Starts the producers that enqueue every key again, on the timeline; their start-up is the second wave's (second-wave.ts). */
function startSecondWave(drill: Supervised, wave: SecondWave, now: number): void {
  const names = drill.again.map((spec) => spec.name).join(', ');
  drill.timeline.record('enqueue-again', `${drill.scenario.settings.enqueue_again}: ${names} enqueue every key again`);
  for (const spec of drill.again) drill.processes.start(spec);
  wave.started(now);
}

/** The harness's own person: approves every prepared step waiting for one, on the timeline. */
async function approveWaiting(drill: Supervised, jobs: readonly JobSnapshot[]): Promise<void> {
  for (const job of jobs) {
    if (job.status !== 'review' || job.outcome !== 'awaiting_approval') continue;
    const step = await approveStep(drill.queue, job.id, DRILL_APPROVER, job);
    drill.timeline.record('approve', `job ${job.id} step ${step} approved by the drill (a recorded human action)`, undefined, { job: job.id, step });
  }
}
