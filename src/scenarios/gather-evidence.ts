import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueConnection, RetryDelayPolicy } from '../port/adapter.js';
import { readLedger } from '../world/ledger.js';
import { acceptedJobs } from './accepted-jobs.js';
import type { Evidence, EvidenceAvailability, LogFile, TimelineEvent } from './evidence.js';
import type { ResolvedScenario } from './resolve.js';

/** Every process log of a run directory, whole. */
export function readLogs(runDir: string): LogFile[] {
  return readdirSync(runDir)
    .filter((name) => name.endsWith('.log') || name.endsWith('.log.err'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(runDir, name), 'utf8') }));
}

/** Reads everything a drill is judged by, after its processes have stopped. */
export async function gatherEvidence(input: {
  scenario: ResolvedScenario;
  runDir: string;
  queue: QueueConnection;
  available: EvidenceAvailability;
  ledger: string;
  timeline: TimelineEvent[];
  atRest: boolean;
  retryPolicy: RetryDelayPolicy;
}): Promise<Evidence> {
  const logs = readLogs(input.runDir);
  const snapshot = await input.queue.snapshot();
  return {
    scenario: input.scenario.name,
    available: input.available,
    jobs: snapshot.jobs,
    events: snapshot.history,
    txLog: await input.queue.saga.rows(),
    incidents: await input.queue.saga.incidents(),
    effects: existsSync(input.ledger) ? readLedger(input.ledger) : [],
    accepted: acceptedJobs(input.scenario.jobs, logs),
    timeline: input.timeline,
    logs,
    artefacts: [],
    secrets: input.scenario.secrets,
    atRest: input.atRest,
    retryPolicy: input.retryPolicy,
    leaseMs: input.scenario.settings.lease_ms,
    skewMarginMs: input.scenario.settings.skew_margin_ms,
  };
}
