import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ClockBook } from '../faults/clock-book.js';
import { controlWith } from '../faults/controller.js';
import { FaultPlan } from '../faults/fault-plan.js';
import { type ChildExit, Supervisor } from '../harness/supervisor.js';
import { startWorld } from '../harness/world-process.js';
import type { DrillEnding, ScenarioRun } from '../judge/drill-record.js';
import type { Evidence, StarvedSpan } from '../judge/evidence.js';
import { type Clock, systemClock } from '../kernel/clock.js';
import { withDeadline } from '../kernel/deadline.js';
import { jobsFileEntries, writeJobsFile } from '../kernel/jobs-file.js';
import { seededRandom } from '../kernel/random.js';
import { type Releasers, withReleasers } from '../kernel/releasers.js';
import { watchStarvation } from '../kernel/starvation-watch.js';
import type { QueueAdapter, QueueConnection, ServerSettings } from '../port/adapter.js';
import { connectQueue, retryPolicyOf } from '../port/connect-queue.js';
import { LEDGER_FILE, type QueueAddress } from '../port/queue-address.js';
import { QUEUE_OPTIONS_ENV, type QueueOptionValues } from '../port/queue-options.js';
import { resolveServers } from '../port/servers.js';
import { connectsOnlyHere, isShippedQueue } from '../queues/connects-only-here.js';
import type { ScenarioPhases } from '../report/schema.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';
import { WorldClient } from '../world/client.js';
import type { ArmedFault } from '../world/faults.js';
import { setFences } from '../world/ledger/settings-table.js';
import { WorldLedger } from '../world/ledger.js';
import { gatherEvidence, missingEvidenceError } from './gather-evidence.js';
import { DrillFailedError, failureText } from './harness-error.js';
import { controlTimeline } from './runner/control-timeline.js';
import { diskFull } from './runner/disk-space.js';
import { type DrillNetwork, openDrillNetwork } from './runner/drill-network.js';
import { DrillProcesses } from './runner/drill-processes.js';
import { HostedProducer, producerProcessNeeded } from './runner/hosted-producer.js';
import { ProducerRelease } from './runner/producer-release.js';
import { RestartWindow } from './runner/restart-window.js';
import { againProducerSpecs, producerNames, roleSpecs } from './runner/role-args.js';
import { type Supervised, supervise } from './runner/supervise.js';
import type { WorldHost } from './runner/world-host.js';
import { WorldLoss } from './runner/world-loss.js';
import { readStarvedSpans, starvedEvents } from './starvation-spans.js';
import { Timeline } from './timeline.js';

/** Where the harness writes its own starved spans in a scenario's run directory. */
const HARNESS_STARVED_FILE = 'harness.starved';

/** How a scenario runs besides what the scenario says: the servers a queue may need, and whether its queue is kept. */
export interface ScenarioRunOptions {
  servers: ServerSettings;
  /** Keep the drill's queue (a schema, say) after the run instead of dropping it. */
  keep: boolean;
  /** Let the restart_server fault restart the queue's server (--restart-servers). @default false */
  restartServers?: boolean;
  /** The queue's own options, defaults filled in (src/port/queue-options.ts). @default every option at its default */
  queueOptions?: QueueOptionValues;
  /** Where the scenario's world is served: a drill's shared host (./runner/world-host.ts), else a world process of its own. */
  worlds?: WorldHost;
}

/** Empties the run directory (this run's alone: nothing left from an earlier run may pass for its evidence); the ledger's path in it. */
function freshRunDir(runDir: string): string {
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  return join(runDir, LEDGER_FILE);
}

/** Where the drill's queue is once the drill is over: a store file stays in the run directory, a schema only if kept. */
function addressAfter(impl: QueueAdapter, locator: string, queue: string, options: { keep: boolean; servers: ServerSettings }): QueueAddress | null {
  if (impl.locatorKind === 'file') return { queue, store: locator, storeKind: 'file' };
  return options.keep ? { queue, store: locator, storeKind: 'name', servers: options.servers } : null;
}

/** How the harness's own connection to the queue behaves: the scenario's lease, its seed's randomness. */
function harnessConnection(
  scenario: ResolvedScenario,
  clock: Clock,
  servers: ServerSettings,
  queueOptions: QueueOptionValues,
  env: Readonly<Record<string, string>>,
) {
  const { settings } = scenario;
  return {
    clock,
    random: seededRandom(scenario.seed),
    leaseMs: settings.lease_ms,
    skewMarginMs: settings.skew_margin_ms,
    callTimeoutMs: settings.call_timeout_ms,
    servers,
    queueOptions,
    // What the drill's processes find in their environment (a name locator's saga file), this process is handed.
    env,
  };
}

/** The restart_server fault's way to the queue's server, where the queue has one. */
function restartHook(impl: QueueAdapter, servers: ServerSettings, window: RestartWindow): { restartServer?: () => Promise<string> } {
  const restart = impl.restartServer?.bind(impl);
  return restart ? { restartServer: () => window.around(() => restart(servers)) } : {};
}

/** The world faults armed, each with what the world says of it (how often it fired). */
type WorldFaults = Array<{ armed: ArmedFault; describe: string }>;

let runCount = 0;

/** How long one call to the queue's server may take (make the queue, connect, tear it down): a frozen server never answers. */
const SERVER_CALL_MS = 20_000;
/** How long each call to the queue's server may take once the drill ended in a harness error (its server may be frozen). */
const AFTER_HARNESS_ERROR_MS = 2_000;
/** How long reading a drill's evidence may take (every job's history, on a loaded machine). */
const EVIDENCE_MS = 60_000;

/*
 * Runs one scenario on real processes: a fresh queue, a world, a coordinator,
 * producers and workers, each child under the fault plan's control channel,
 * supervised until the drill is at rest, stuck, out of time or interrupted.
 * Everything is then stopped and the evidence gathered, whatever happened; what
 * was opened is released last-opened-first, every release attempted.
 */
export async function runScenario(
  scenario: ResolvedScenario,
  impl: QueueUnderDrill,
  runDir: string,
  signal: AbortSignal,
  options: ScenarioRunOptions,
): Promise<ScenarioRun> {
  const started = Date.now();
  const clock = systemClock();
  const ledger = freshRunDir(runDir);
  const settings = scenario.settings;
  const timeline = new Timeline(clock);
  const servers: ServerSettings = resolveServers(options.servers, settings);
  const plan = new FaultPlan(scenario.pointFaults, seededRandom(scenario.seed));
  const phase = phaseClock(started);
  // What was opened is released last-opened-first, every release attempted; what failed first is the story.
  const run = await withReleasers(async (releasers): Promise<ScenarioRun> => {
    const queueOptions = options.queueOptions ?? {};
    const calls = new ServerCalls(SERVER_CALL_MS * (scenario.timeScale ?? 1));
    const { provisioned, queue } = await openQueue(impl, { scenario, runDir, servers, queueOptions, keep: options.keep, clock }, releasers, calls);
    phase.end('provisionMs');
    // Every process of the drill connects with the queue's options, as the servers' URLs reach them: in its environment.
    const env = { ...provisioned.env, [QUEUE_OPTIONS_ENV]: JSON.stringify(queueOptions) };
    const network = await networkOf(scenario, impl, env, { clock, timeline }, releasers);
    const supervisor = drillSupervisor(runDir, env, impl, servers);
    releasers.add("the drill's processes", () => supervisor.stopAll());
    const barrier = join(runDir, 'start-barrier');
    const restarts = new RestartWindow();
    // Every process's clock and every lease its queue granted, as the control channels tell them (src/kernel/time-base.ts).
    const clocks = new ClockBook();
    const control = { plan, clock, clocks, ...restartHook(impl, servers, restarts), ...(network ? { network: network.linkOf } : {}) };
    const deadline = started + settings.timeout_ms;
    const supervised = supervision({ scenario, queue, impl, supervisor, control, timeline, barrier, signal, deadline, restarts, network, runDir });
    // The harness measures its own starvation too (a late tick of its own is a late answer to every failpoint).
    const watch = watchStarvation({ file: join(runDir, HARNESS_STARVED_FILE) });
    releasers.add("the harness's starvation watch", async () => watch.stop());
    const drilled = await drill(supervised, { runDir, ledger, locator: provisioned.locator, supervisor, barrier, worlds: options.worlds });
    releasers.add("the scenario's world", drilled.closeWorld);
    phase.end('drillMs');
    await supervisor.stopAll();
    network?.takeBackDrops(plan);
    // After every process that calls it: its ledger is then closed, and the evidence may read it.
    await drilled.closeWorld();
    watch.stop();
    phase.end('stopMs');
    const timing = drillTiming(scenario, timeline, { runDir, started, drilled, releasedAt: supervised.producerRelease.releasedAt });
    // A drill that ended in a harness error may have lost its server: a frozen one would hold every read for ever.
    if (drilled.ending === 'harness-error') calls.shorten();
    const gathered = await readEvidence(drilled, calls, EVIDENCE_MS * (scenario.timeScale ?? 1), {
      scenario,
      runDir,
      queue,
      available: impl.capabilities.evidence,
      ledger,
      // The starved spans drawn among the harness's own events, in time order.
      timeline: inTimeOrder([...timeline.events, ...starvedEvents(timing.starved)]),
      clocks: { queue: impl.capabilities.clock, offsets: clocks.offsets(), leases: clocks.leases },
      atRest: drilled.ending === 'at-rest',
      retryPolicy: retryPolicyOf(impl, { baseMs: settings.retry.base_ms, capMs: settings.retry.cap_ms, jitterMs: settings.retry.jitter_ms }),
    });
    phase.end('evidenceMs');
    return {
      scenario,
      queueVersion: impl.version,
      runDir,
      store: provisioned.where,
      ledger,
      address: addressAfter(impl, provisioned.locator, settings.queue, { keep: options.keep, servers }),
      evidence: { ...gathered.evidence, ...timing },
      pointFaults: plan.stats(),
      ...drilled,
      // The drill's own failure first: evidence it left missing is only what followed from it.
      error: drilled.error ?? missingEvidenceError(gathered.missing),
      durationMs: Date.now() - started,
      phases: phase.phases,
    };
  });
  phase.end('teardownMs');
  return run;
}

/** A scenario with a network fault puts a fault proxy between each process and each server; the harness's own connection stays direct. */
async function networkOf(
  scenario: ResolvedScenario,
  impl: QueueAdapter,
  env: Readonly<Record<string, string>>,
  run: { clock: Clock; timeline: Timeline },
  releasers: Releasers,
): Promise<DrillNetwork | undefined> {
  // How the queue names what goes over its wire: its scripts (EVALSHA), the requests that carry its writes.
  const wire = { ...(impl.scriptNames ? { scripts: impl.scriptNames } : {}), ...(impl.wireRequests ? { writes: impl.wireRequests } : {}) };
  const network = await openDrillNetwork(scenario, env, { ...run, ...wire });
  if (network) releasers.add("the drill's network links", () => network.close());
  return network;
}

/** Calls to the queue's server, each with a deadline: a frozen server never answers. Shortened once the drill ended in a harness error. */
class ServerCalls {
  constructor(private ms: number) {}

  within<T>(work: Promise<T>, what: string): Promise<T> {
    return withDeadline(work, this.ms, what);
  }

  /** The server may be gone: whatever is still asked of it is asked briefly. */
  shorten(): void {
    this.ms = Math.min(this.ms, AFTER_HARNESS_ERROR_MS);
  }

  get deadlineMs(): number {
    return this.ms;
  }
}

/** The drill's queue, made (schema and all) before any child starts, and the harness's connection to it; each released with a deadline. */
async function openQueue(
  impl: QueueAdapter,
  run: { scenario: ResolvedScenario; runDir: string; servers: ServerSettings; queueOptions: QueueOptionValues; keep: boolean; clock: Clock },
  releasers: Releasers,
  calls: ServerCalls,
) {
  const { runDir, servers, queueOptions } = run;
  // The id is unique among every drill now or before (a run directory is a new stamp), and readable in a schema's name.
  const runId = `${run.scenario.name} ${basename(dirname(runDir))} ${process.pid} ${++runCount}`;
  const provisioned = await calls.within(
    impl.provision({ runDir, runId, servers, options: queueOptions, maxAttempts: run.scenario.jobs.map((job) => job.maxAttempts) }),
    "making the drill's queue",
  );
  releasers.add("the drill's queue", () => calls.within(provisioned.teardown({ keep: run.keep }), "removing the drill's queue"));
  const connecting = connectQueue(impl, provisioned.locator, harnessConnection(run.scenario, run.clock, servers, queueOptions, provisioned.env));
  const queue = await calls.within(connecting, "the harness's connection to the queue");
  releasers.add("the harness's connection", () => calls.within(queue.close(), "closing the harness's connection to the queue"));
  return { provisioned, queue };
}

/** The drill's evidence, read within a deadline; when the drill itself failed, its failure leads the error. */
function readEvidence(
  drilled: { ending: DrillEnding; error: string | null },
  calls: ServerCalls,
  evidenceMs: number,
  input: Parameters<typeof gatherEvidence>[0],
): ReturnType<typeof gatherEvidence> {
  const ms = drilled.ending === 'harness-error' ? calls.deadlineMs : evidenceMs;
  return withDeadline(gatherEvidence(input), ms, "reading the drill's evidence from the queue").catch((error: unknown) => {
    throw drilled.error === null ? error : new DrillFailedError(`${drilled.error} (then: ${failureText(error)})`, input.timeline);
  });
}

/**
 * How the drill ended and how the machine starved it, for the judge: the end on the timeline, every starved
 * span of its processes (the world host's for this drill's time alone), when the producers were let go, and
 * the scenario's own clocks a starved span is weighed against.
 */
function drillTiming(
  scenario: ResolvedScenario,
  timeline: Timeline,
  run: { runDir: string; started: number; drilled: { ending: DrillEnding; error: string | null; hostSpans?: string }; releasedAt: number | null },
): Pick<Evidence, 'releasedAt' | 'endedAt' | 'ending' | 'callTimeoutMs' | 'noProgressMs' | 'pollMs' | 'tickMs'> & { starved: StarvedSpan[] } {
  const { drilled, releasedAt } = run;
  const ended = timeline.record(
    drilled.ending === 'at-rest' ? 'at-rest' : 'watchdog',
    `drill ended: ${drilled.ending}${drilled.error ? `: ${drilled.error}` : ''}`,
  );
  const starved = readStarvedSpans(run.runDir, timeline.events, {
    extra: drilled.hostSpans ? [{ file: drilled.hostSpans, process: 'world-host' }] : [],
    from: run.started,
    to: Date.now(),
  });
  return {
    starved,
    releasedAt: releasedAt === null ? null : new Date(releasedAt).toISOString(),
    endedAt: ended.at,
    ending: drilled.ending,
    callTimeoutMs: scenario.settings.call_timeout_ms,
    noProgressMs: scenario.settings.no_progress_ms,
    pollMs: scenario.settings.poll_ms,
    tickMs: scenario.settings.tick_ms,
  };
}

/** What the supervision loop watches: the drill's processes under the fault plan's control, and the producers' release. */
function supervision(drill: {
  scenario: ResolvedScenario;
  queue: QueueConnection;
  impl: QueueAdapter;
  supervisor: Supervisor;
  control: Omit<Parameters<typeof controlWith>[0], 'onEvent'> & { clock: Clock };
  timeline: Timeline;
  barrier: string;
  signal: AbortSignal;
  deadline: number;
  restarts: RestartWindow;
  network: DrillNetwork | undefined;
  runDir: string;
}): Supervised {
  const seen = controlTimeline(drill.timeline);
  const { queue, timeline, runDir } = drill;
  const hostedProducer = hostedProducerOf(drill.scenario, drill.impl, { queue, clock: drill.control.clock, timeline, runDir });
  const processes = new DrillProcesses(
    drill.supervisor,
    controlWith({ ...drill.control, onEvent: seen.onControl }),
    drill.timeline,
    drill.scenario.settings.restart,
    drill.network?.envFor,
  );
  drill.network?.placeEvents((name) => processes.current(name));
  return {
    scenario: drill.scenario,
    queue: drill.queue,
    onServer: (drill.impl.needs ?? []).length > 0,
    processes,
    // A producer the harness runs has no barrier to wait at: it goes at the release, which then comes at once.
    producerRelease: new ProducerRelease(drill.barrier, hostedProducer ? [] : producerNames(drill.scenario), drill.timeline),
    ...(hostedProducer ? { hostedProducer } : {}),
    timeline: drill.timeline,
    held: seen.held,
    signal: drill.signal,
    deadline: drill.deadline,
    again: [],
    restarts: drill.restarts,
  };
}

/** The phases of one scenario's run, each ended in turn: how long since the one before ended (the first: since `started`). */
function phaseClock(started: number) {
  const phases: Omit<ScenarioPhases, 'judgeMs'> = {
    startedAt: new Date(started).toISOString(),
    provisionMs: 0,
    drillMs: 0,
    stopMs: 0,
    evidenceMs: 0,
    teardownMs: 0,
  };
  let last = started;
  return {
    phases,
    end(name: Exclude<keyof ScenarioPhases, 'startedAt' | 'judgeMs'>): void {
      const now = Date.now();
      phases[name] = now - last;
      last = now;
    },
  };
}

/** The drill proper: the world and its faults, the processes, the supervision; a failure of the harness is its ending, not a throw. */
async function drill(
  supervised: Supervised,
  run: { runDir: string; ledger: string; locator: string; supervisor: Supervisor; barrier: string; worlds: WorldHost | undefined },
): Promise<{ ending: DrillEnding; error: string | null; worldFaults: WorldFaults; closeWorld: () => Promise<void>; hostSpans?: string }> {
  const { scenario, timeline } = supervised;
  let client: WorldClient | null = null;
  let worldFaults: WorldFaults = [];
  let ending: DrillEnding;
  let error: string | null = null;
  // A world process of its own is stopped with the other processes; a hosted world is closed by the host.
  let closeWorld = async (): Promise<void> => {};
  let hostSpans: string | undefined;
  try {
    setUpWorld(run.ledger, scenario.worldFences ?? true);
    const world = run.worlds ? await run.worlds.open(run.ledger, join(run.runDir, 'world.1.log')) : await ownWorld(run.supervisor, run.ledger);
    closeWorld = world.close;
    hostSpans = world.starvedLog;
    timeline.record('spawn', `world on ${world.url}`, { name: 'world#1', pid: world.pid });
    client = new WorldClient(world.url, { timeoutMs: 5_000 });
    worldFaults = await armWorldFaults(client, scenario, timeline);
    const jobsFile = join(run.runDir, 'jobs.json');
    // Read by the producers in clear; redacted once the world is closed, every process of the drill stopped before it (a CI artefact).
    closeWorld = writeJobsFile(jobsFile, scenario.jobs, scenario.secrets, closeWorld);
    // Producers start one by one; the start barrier lets them go together once all are ready, so they really race on every key.
    const context = { locator: run.locator, worldUrl: world.url, jobsFile, barrier: run.barrier };
    for (const spec of roleSpecs(scenario, context)) if (!(supervised.hostedProducer && spec.kind === 'producer')) supervised.processes.start(spec);
    // A world that dies under the drill ends it: what the jobs did after that says nothing of the queue; so does a full disk.
    const lost = new WorldLoss(world, timeline);
    ending = await supervise({
      ...supervised,
      signal: AbortSignal.any([supervised.signal, lost.signal]),
      again: againProducerSpecs(scenario, context),
    });
    // Its last enqueue finishes before the harness's connection closes (a drill that ended early: a few calls).
    await supervised.hostedProducer?.settled();
    const why = lost.end() ?? diskFull(run.runDir);
    if (why !== null) {
      ending = 'harness-error';
      error = why;
    }
  } catch (caught) {
    ending = 'harness-error';
    error = caught instanceof Error ? caught.message : String(caught);
  }
  // Read while the world still runs: how often each armed fault fired is the world's to say.
  if (client) {
    worldFaults = await firedCounts(client, worldFaults);
    client.close();
  }
  return { ending, error, worldFaults, closeWorld, ...(hostSpans ? { hostSpans } : {}) };
}

/** The scenario's producer as the harness's own, where nothing of the scenario can reach a producer (./runner/hosted-producer.ts). */
function hostedProducerOf(
  scenario: ResolvedScenario,
  impl: QueueAdapter,
  run: { queue: QueueConnection; clock: Clock; timeline: Timeline; runDir: string },
): HostedProducer | undefined {
  if (producerProcessNeeded(scenario, impl) !== null) return undefined;
  const [name] = producerNames(scenario) as [string];
  // Made now, as a process's log is at its spawn: a drill that ends before the release still has it.
  const logFile = join(run.runDir, `${name}.1.log`);
  writeFileSync(logFile, '');
  // The jobs as the jobs file gives a producer process them, from the scenario the harness holds (not read back).
  return new HostedProducer({ name, jobs: jobsFileEntries(scenario.jobs), logFile, queue: run.queue, clock: run.clock, timeline: run.timeline });
}

/** Events in time order; those at the same instant keep the order they were recorded in. */
function inTimeOrder<E extends { at: string }>(events: readonly E[]): E[] {
  return [...events].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** Writes how the world behaves into its ledger file, before any world process opens it. */
function setUpWorld(file: string, fences: boolean): void {
  const ledger = WorldLedger.open(file);
  try {
    setFences(ledger.db, fences);
  } finally {
    ledger.close();
  }
}

/** A world process for this scenario alone, stopped with its other processes. */
async function ownWorld(
  supervisor: Supervisor,
  ledger: string,
): Promise<{ url: string; pid: number; exited: Promise<ChildExit>; close: () => Promise<void>; starvedLog?: string }> {
  const world = await startWorld(supervisor, ledger);
  return { url: world.url, pid: world.child.pid, exited: world.child.exited, close: async () => {} };
}

/** Arms the scenario's world faults, each on the timeline. */
async function armWorldFaults(client: WorldClient, scenario: ResolvedScenario, timeline: Timeline): Promise<WorldFaults> {
  const armed: WorldFaults = [];
  for (const fault of scenario.worldFaults) {
    const state = await client.armFault(fault.spec);
    armed.push({ armed: state, describe: fault.describe });
    timeline.record('world-fault-armed', `#${state.id}: ${fault.describe}`);
  }
  return armed;
}

/** How often each armed world fault fired, as the world says; the counts at arming if the world is gone. */
async function firedCounts(client: WorldClient, faults: WorldFaults): Promise<WorldFaults> {
  try {
    const states = await client.faults({ includeCleared: true });
    return faults.map((f) => ({ ...f, armed: states.find((s) => s.id === f.armed.id) ?? f.armed }));
  } catch {
    return faults;
  }
}

/**
 * The supervisor of a scenario's processes: each measures its starvation; what the drill's own processes are spared
 * (src/harness/ca-bundle.ts, src/harness/heap-trim.ts), a user's queue process never is.
 */
function drillSupervisor(runDir: string, env: Record<string, string>, impl: QueueAdapter, servers: ServerSettings): Supervisor {
  return new Supervisor(runDir, env, { starvation: true, caBundle: !connectsOnlyHere(impl, servers), keepFreedHeap: isShippedQueue(impl) });
}
