import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import { connectQueue, queueImpl } from '../adapters/registry.js';
import { controlWith, type ControlEvent } from '../faults/controller.js';
import { FaultPlan, type RuleStats } from '../faults/fault-plan.js';
import { Supervisor, type Child } from '../harness/supervisor.js';
import { startWorld } from '../harness/world-process.js';
import { systemClock } from '../kernel/clock.js';
import { seededRandom } from '../kernel/random.js';
import type { QueueConnection, ServerSettings } from '../port/adapter.js';
import type { JobSnapshot } from '../port/snapshot.js';
import { approveStep } from '../saga/approve.js';
import { WorldClient } from '../world/client.js';
import type { ArmedFault } from '../world/faults.js';
import type { Evidence } from './evidence.js';
import { gatherEvidence } from './gather-evidence.js';
import type { ResolvedScenario } from './resolve.js';
import { Timeline } from './timeline.js';

/** What one run of one scenario left behind: the evidence, the faults' record, and how it ended. */
export interface ScenarioRun {
  scenario: ResolvedScenario;
  /** The queue implementation's version, as its adapter says. */
  queueVersion: string;
  runDir: string;
  /** Where the drill's queue was (passwords hidden). */
  store: string;
  ledger: string;
  evidence: Evidence;
  pointFaults: RuleStats[];
  worldFaults: Array<{ armed: ArmedFault; describe: string }>;
  /** Why the drill stopped. */
  ending: 'at-rest' | 'no-progress' | 'timeout' | 'interrupted' | 'harness-error';
  error: string | null;
  durationMs: number;
}

/** One process of the drill and how it is started again. */
interface Role {
  name: string;
  kind: 'worker' | 'coordinator' | 'producer';
  args: string[];
  child: Child;
  restarts: number;
  /** A producer that exited 0 has done its part. */
  finished: boolean;
  restartAt: number | null;
}

/** How a scenario runs besides what the scenario says: the servers a queue may need, and whether its queue is kept. */
export interface ScenarioRunOptions {
  servers: ServerSettings;
  /** Keep the drill's queue (a schema, say) after the run instead of dropping it. */
  keep: boolean;
}

let runCount = 0;

/*
 * Runs one scenario on real processes: a world, a coordinator, producers and
 * workers, each child under the fault plan's control channel. Then it supervises:
 * restarts what died, approves what waits for a person (a recorded action), and
 * stops once the system is at rest (every job done or in review, nothing
 * running, for a quiet moment), or when nothing has changed for no_progress_ms
 * (the watchdog), or at timeout_ms. Everything is then stopped, and the
 * evidence gathered, whatever happened.
 */
export async function runScenario(scenario: ResolvedScenario, runDir: string, signal: AbortSignal, options: ScenarioRunOptions): Promise<ScenarioRun> {
  const started = Date.now();
  const clock = systemClock();
  // The run directory is this run's alone: nothing left from an earlier run may pass for its evidence.
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const ledger = join(runDir, 'ledger.db');
  const s = scenario.settings;
  const timeline = new Timeline(clock);
  const impl = queueImpl(s.queue);
  // Made (schema and all) before any child starts, so the children never race on it.
  const servers: ServerSettings = { pgUrl: options.servers.pgUrl ?? process.env.QD_PG_URL ?? s.pg_url };
  // Unique among every drill now or before (a run directory is a new stamp), and readable in a schema's name.
  const runId = `${scenario.name} ${basename(dirname(runDir))} ${process.pid} ${++runCount}`;
  const provisioned = await impl.provision({ runDir, runId, servers });
  let observer: QueueConnection;
  try {
    observer = await connectQueue(impl, provisioned.locator, { clock, random: seededRandom(scenario.seed), leaseMs: s.lease_ms, skewMarginMs: s.skew_margin_ms, servers });
  } catch (error) {
    await provisioned.teardown({ keep: options.keep });
    throw error;
  }
  const store = provisioned.locator;
  const supervisor = new Supervisor(runDir, provisioned.env);
  const plan = new FaultPlan(scenario.pointFaults, seededRandom(scenario.seed));
  let activePauses = 0;
  const onControl = (event: ControlEvent) => {
    const process = { name: `${event.child}#${event.incarnation}`, pid: event.pid };
    const { context } = event;
    const where = `${event.point}${context.step ? ` step ${context.step}` : ''}${context.jobId === undefined ? '' : ` job ${context.jobId}`}${context.attempt === undefined ? '' : ` attempt ${context.attempt}`}`;
    const place = { point: event.point, worker: context.worker, job: context.jobId, attempt: context.attempt, step: context.step };
    if (event.kind === 'hit') {
      // Where each process got to, as the harness saw it (heartbeats are too many to keep).
      if (event.point !== 'heartbeat') timeline.record('fault-hit', `${context.worker} at ${where}`, process, place);
      return;
    }
    if (event.action.type === 'continue') return;
    if (event.kind === 'resumed') {
      activePauses--;
      timeline.record('resume', `SIGCONT after the pause at ${where}`, process, place);
      return;
    }
    if (event.action.type === 'pause') activePauses++;
    const fired = { ...place, action: event.action.type, ...('ms' in event.action ? { ms: event.action.ms } : {}) };
    timeline.record('fault-fired', `${event.action.type} at ${where} (rule ${event.rule})`, process, fired);
    if (event.action.type === 'crash') timeline.record('kill', `SIGKILL while held at ${where}`, process, place);
    if (event.action.type === 'pause') timeline.record('pause', `SIGSTOP for ${event.action.ms} ms at ${where}`, process, fired);
  };
  const control = controlWith({ plan, onEvent: onControl, clock });
  const roles: Role[] = [];
  let client: WorldClient | null = null;
  let worldFaults: Array<{ armed: ArmedFault; describe: string }> = [];
  let ending: ScenarioRun['ending'] = 'harness-error';
  let error: string | null = null;

  const spawn = (role: Omit<Role, 'child' | 'restarts' | 'finished' | 'restartAt'> & Partial<Role>): Role => {
    const child = supervisor.spawn(role.name, role.args, { control });
    const full: Role = { restarts: 0, finished: false, restartAt: null, ...role, child };
    timeline.record(child.incarnation === 1 ? 'spawn' : 'restart', `${role.kind} ${role.name}`, { name: `${role.name}#${child.incarnation}`, pid: child.pid });
    void child.exited.then((exit) => {
      timeline.record('exit', exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`, { name: `${role.name}#${child.incarnation}`, pid: child.pid });
    });
    return full;
  };

  try {
    const world = await startWorld(supervisor, ledger);
    timeline.record('spawn', `world on ${world.url}`, { name: 'world#1', pid: world.child.pid });
    client = new WorldClient(world.url, { timeoutMs: 5_000 });
    for (const fault of scenario.worldFaults) {
      const armed = await client.armFault(fault.spec);
      worldFaults.push({ armed, describe: fault.describe });
      timeline.record('world-fault-armed', `#${armed.id}: ${fault.describe}`);
    }
    const jobsFile = join(runDir, 'jobs.json');
    writeFileSync(jobsFile, JSON.stringify(scenario.jobs.map((j) => ({ key: j.key, plan: j.plan, maxAttempts: j.maxAttempts }))));
    const common = ['--store', store, '--queue', s.queue, '--skew-margin-ms', String(s.skew_margin_ms)];
    if (s.coordinator) {
      roles.push(spawn({
        name: 'coordinator',
        kind: 'coordinator',
        args: ['coordinator', ...common, '--world', world.url, '--tick-ms', String(s.tick_ms), '--lease-ms', String(s.lease_ms), '--call-timeout-ms', String(s.call_timeout_ms)],
      }));
    }
    // Producers start one by one; a common start instant makes them really race on every key.
    const startAt = Date.now() + 200 + 60 * s.producers;
    for (let p = 1; p <= s.producers; p++) {
      roles.push(spawn({ name: `p${p}`, kind: 'producer', args: ['producer', '--store', store, '--queue', s.queue, '--jobs', jobsFile, '--name', `p${p}`, '--start-at', String(startAt)] }));
    }
    scenario.workers.forEach((worker, index) => {
      roles.push(spawn({
        name: worker.id,
        kind: 'worker',
        args: [
          'worker', ...common, '--id', worker.id, '--world', world.url,
          '--lease-ms', String(s.lease_ms), '--poll-ms', String(s.poll_ms), '--call-timeout-ms', String(s.call_timeout_ms),
          '--seed', String(scenario.seed + index + 1), '--clock-skew-ms', String(worker.clockSkewMs),
          '--retry-base-ms', String(s.retry.base_ms), '--retry-cap-ms', String(s.retry.cap_ms), '--retry-jitter-ms', String(s.retry.jitter_ms),
        ],
      }));
    });
    ending = await supervise();
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
    ending = 'harness-error';
  } finally {
    if (client) {
      try {
        const states = await client.faults({ includeCleared: true });
        worldFaults = worldFaults.map((f) => ({ ...f, armed: states.find((s) => s.id === f.armed.id) ?? f.armed }));
      } catch {
        // The world died: the counts armed are all there is.
      }
      client.close();
    }
    await supervisor.stopAll();
  }
  timeline.record(ending === 'at-rest' ? 'at-rest' : 'watchdog', `drill ended: ${ending}${error ? `: ${error}` : ''}`);
  let evidence;
  try {
    evidence = await gatherEvidence({ scenario, runDir, queue: observer, available: impl.capabilities.evidence, ledger, timeline: timeline.events, atRest: ending === 'at-rest' });
  } finally {
    await observer.close();
    await provisioned.teardown({ keep: options.keep });
  }
  return { scenario, queueVersion: impl.version, runDir, store: provisioned.where, ledger, evidence, pointFaults: plan.stats(), worldFaults, ending, error, durationMs: Date.now() - started };

  async function supervise(): Promise<ScenarioRun['ending']> {
    const deadline = started + s.timeout_ms;
    const quietMs = Math.max(100, 3 * s.poll_ms, 2 * s.tick_ms);
    let fingerprint = '';
    let lastChange = Date.now();
    let restSince: number | null = null;
    for (;;) {
      if (signal.aborted) return 'interrupted';
      const now = Date.now();
      if (now >= deadline) return 'timeout';
      for (const role of roles) {
        if (role.child.alive || role.finished) continue;
        if (role.restartAt === null) {
          const exit = await role.child.exited;
          if (role.kind === 'producer' && exit.exitCode === 0) {
            role.finished = true;
            continue;
          }
          if (s.restart === false || role.restarts >= s.restart.max) {
            role.finished = true;
            timeline.record('note', `${role.name} is not restarted (${s.restart === false ? 'restarts off' : `${role.restarts} restarts used`})`);
            continue;
          }
          role.restartAt = now + s.restart.after_ms;
        } else if (now >= role.restartAt) {
          const next = spawn({ name: role.name, kind: role.kind, args: role.args });
          role.child = next.child;
          role.restarts++;
          role.restartAt = null;
        }
      }
      // One read of the jobs a tick, for the approvals and the rest check alike.
      const { jobs } = await observer.snapshot({ history: false });
      await approveWaiting(jobs);
      const seen = `${await observer.progress()}:${timeline.events.length}`;
      if (seen !== fingerprint) {
        fingerprint = seen;
        lastChange = now;
      } else if (now - lastChange >= s.no_progress_ms) {
        timeline.record('watchdog', `no progress for ${s.no_progress_ms} ms`);
        return 'no-progress';
      }
      if (atRest(jobs)) {
        restSince ??= now;
        if (now - restSince >= quietMs) return 'at-rest';
      } else {
        restSince = null;
      }
      await sleep(5);
    }
  }

  async function approveWaiting(jobs: readonly JobSnapshot[]): Promise<void> {
    if (!s.approve) return;
    for (const job of jobs) {
      if (job.status !== 'review' || job.outcome !== 'awaiting_approval') continue;
      const step = await approveStep(observer, job.id, 'drill', job);
      timeline.record('approve', `job ${job.id} step ${step} approved by drill (a recorded human action)`, undefined, { job: job.id, step });
    }
  }

  function atRest(jobs: readonly JobSnapshot[]): boolean {
    if (activePauses > 0) return false;
    if (roles.some((r) => r.kind === 'producer' && !r.finished)) return false;
    if (roles.some((r) => r.restartAt !== null)) return false;
    if (jobs.length < scenario.jobs.length) return false;
    return jobs.every((job) => job.status === 'done' || (job.status === 'review' && !(s.approve && job.outcome === 'awaiting_approval')));
  }
}
