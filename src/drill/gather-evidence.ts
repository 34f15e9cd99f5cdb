import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LeaseReport } from '../faults/clock-book.js';
import type { Accepted, Evidence, EvidenceAvailability, LogFile, TimelineEvent, WorldRecord } from '../judge/evidence.js';
import type { ClockOffset } from '../kernel/time-base.js';
import type { Capabilities, QueueConnection, RetryDelayPolicy } from '../port/adapter.js';
import type { Incident, TxRow } from '../port/checkpoint.js';
import type { JobSnapshot, Transition } from '../port/snapshot.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';
import { allCalls } from '../world/ledger/calls-table.js';
import { allDeliveries } from '../world/ledger/deliveries-table.js';
import { withLedgerFile } from '../world/ledger/read-file.js';
import { fencesOn } from '../world/ledger/settings-table.js';
import { type EffectRow, readLedger } from '../world/ledger.js';
import { acceptedJobs, isProducerLog } from './accepted-jobs.js';
import { producerNames } from './runner/role-args.js';

/*
 * Gathering fails closed. A source every drill has (the queue's jobs, the
 * saga's checkpoints, the world's ledger, the log of every process the
 * harness started, each producer's answers) or one the queue says it gives
 * (its history) that cannot be read is missing evidence: the harness's
 * failure, which makes the scenario an error. It is never read as an empty
 * list, which would let every invariant hold on nothing. A kind of evidence
 * the queue says it cannot give stays empty, and the invariants that need it
 * are not judged.
 */

/** The evidence as far as it could be read, and one line per source that is missing (none when everything was there). */
export interface GatheredEvidence {
  evidence: Evidence;
  missing: string[];
}

/** Every process log of a run directory, whole. */
export function readLogs(runDir: string): LogFile[] {
  return readdirSync(runDir)
    .filter((name) => name.endsWith('.log') || name.endsWith('.log.err'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(runDir, name), 'utf8') }));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The queue's jobs and history, its checkpoints and incidents; a source that cannot be read, or is no list, is missing. */
async function readQueue(
  queue: QueueConnection,
  available: EvidenceAvailability,
  missing: string[],
): Promise<{ jobs: JobSnapshot[]; events: Transition[]; txLog: TxRow[]; incidents: Incident[] }> {
  const read = async <T>(what: string, source: () => Promise<T[] | undefined>): Promise<T[]> => {
    try {
      const value = await source();
      if (Array.isArray(value)) return value;
      missing.push(`${what}: the queue gave ${value === undefined ? 'nothing' : typeof value}, not a list`);
    } catch (error) {
      missing.push(`${what} could not be read: ${messageOf(error)}`);
    }
    return [];
  };
  let snapshot: Awaited<ReturnType<QueueConnection['snapshot']>> | undefined;
  try {
    snapshot = await queue.snapshot();
  } catch (error) {
    missing.push(`the queue's jobs and history could not be read: ${messageOf(error)}`);
  }
  const jobs = snapshot ? await read("the queue's jobs", async () => snapshot.jobs) : [];
  // A history the queue says it cannot keep is not missing: the invariants that need it are not judged.
  const events = snapshot && available.history === true ? await read("the queue's history (it says it keeps one)", async () => snapshot.history) : [];
  const txLog = await read("the saga's checkpoints", () => queue.saga.rows());
  const incidents = await read("the saga's incidents", () => queue.saga.incidents());
  return { jobs, events, txLog, incidents };
}

/** The world's ledger; a missing or unreadable file is missing evidence (the world makes it before it answers anything). */
function readEffects(ledger: string, missing: string[]): EffectRow[] {
  try {
    return readLedger(ledger);
  } catch (error) {
    missing.push(`the world's ledger could not be read (${messageOf(error)}): no effect can be judged without it`);
    return [];
  }
}

/** The world's own record of who acted when (its calls, and the holders' delivery reports), in its order; absent with the ledger (already said missing). */
function readWorldRecord(ledger: string): WorldRecord | undefined {
  try {
    return withLedgerFile(ledger, (db) => ({ calls: allCalls(db), deliveries: allDeliveries(db), fenced: fencesOn(db) }));
  } catch {
    return undefined;
  }
}

/** The log every process the harness started must have left (name#n → name.n.log), and each producer's first one. */
export function missingLogs(scenario: ResolvedScenario, timeline: readonly TimelineEvent[], logs: readonly LogFile[]): string[] {
  const present = new Set(logs.map((log) => log.name));
  const expected = new Set<string>();
  for (const event of timeline) {
    if (event.kind !== 'spawn' && event.kind !== 'restart') continue;
    const started = /^(.+)#(\d+)$/.exec(event.process ?? '');
    if (started) expected.add(`${started[1]}.${started[2]}.log`);
  }
  for (const producer of producerNames(scenario)) expected.add(`${producer}.1.log`);
  return [...expected]
    .filter((name) => !present.has(name))
    .map((name) =>
      isProducerLog(name)
        ? `the log ${name} is missing: what that producer was told of its enqueues cannot be judged`
        : `the log ${name} of a process the harness started is missing`,
    );
}

/** Which producer asked for which key; a producer log that cannot be read line by line is missing evidence. */
function readAccepted(scenario: ResolvedScenario, logs: readonly LogFile[], missing: string[]): Accepted[] {
  try {
    return acceptedJobs(scenario.jobs, logs);
  } catch (error) {
    missing.push(`the producers' logs could not be read line by line (${messageOf(error)}): who created which job cannot be judged`);
    return acceptedJobs(scenario.jobs, []);
  }
}

/** Reads everything a drill is judged by, after its processes have stopped; says which source is missing. */
export async function gatherEvidence(input: {
  scenario: ResolvedScenario;
  runDir: string;
  queue: QueueConnection;
  available: EvidenceAvailability;
  ledger: string;
  timeline: TimelineEvent[];
  /** The queue's clock (capabilities.clock), the processes' measured offsets, and the leases the workers reported. */
  clocks: { queue: Capabilities['clock']; offsets: ClockOffset[]; leases: LeaseReport[] };
  atRest: boolean;
  retryPolicy: RetryDelayPolicy;
}): Promise<GatheredEvidence> {
  const missing: string[] = [];
  let logs: LogFile[] = [];
  try {
    logs = readLogs(input.runDir);
  } catch (error) {
    missing.push(`the processes' logs could not be read: ${messageOf(error)}`);
  }
  missing.push(...missingLogs(input.scenario, input.timeline, logs));
  const { jobs, events, txLog, incidents } = await readQueue(input.queue, input.available, missing);
  const evidence: Evidence = {
    scenario: input.scenario.name,
    available: input.available,
    jobs,
    events,
    txLog,
    incidents,
    effects: readEffects(input.ledger, missing),
    world: readWorldRecord(input.ledger),
    accepted: readAccepted(input.scenario, logs, missing),
    timeline: input.timeline,
    queueClock: input.clocks.queue,
    clocks: input.clocks.offsets,
    leases: input.clocks.leases,
    logs,
    artefacts: [],
    secrets: input.scenario.secrets,
    atRest: input.atRest,
    retryPolicy: input.retryPolicy,
    leaseMs: input.scenario.settings.lease_ms,
    skewMarginMs: input.scenario.settings.skew_margin_ms,
  };
  return { evidence, missing };
}

/** The scenario's error for missing evidence: every missing source in one message, or null when nothing is missing. */
export function missingEvidenceError(missing: readonly string[]): string | null {
  return missing.length === 0 ? null : `evidence missing, so nothing can be judged: ${missing.join('; ')}`;
}
