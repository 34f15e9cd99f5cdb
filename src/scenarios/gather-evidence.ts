import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueConnection } from '../port/adapter.js';
import { readLedger } from '../world/ledger.js';
import type { Accepted, Evidence, EvidenceAvailability, LogFile, TimelineEvent } from './evidence.js';
import type { ResolvedScenario } from './resolve.js';

/** Every process log of a run directory, whole. */
export function readLogs(runDir: string): LogFile[] {
  return readdirSync(runDir)
    .filter((name) => name.endsWith('.log') || name.endsWith('.log.err'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(runDir, name), 'utf8') }));
}

/** How often each key was asked for and created, from the producers' own lines. */
function acceptedJobs(scenario: ResolvedScenario, logs: LogFile[]): Accepted[] {
  const attempts = new Map<string, { tried: number; created: number }>();
  for (const log of logs) {
    if (!/^p\d+\./.test(log.name) || log.name.endsWith('.err')) continue;
    for (const line of log.text.split('\n')) {
      if (!line.includes('"enqueued"')) continue;
      const entry = JSON.parse(line) as { key: string; created: boolean };
      const counts = attempts.get(entry.key) ?? { tried: 0, created: 0 };
      counts.tried++;
      if (entry.created) counts.created++;
      attempts.set(entry.key, counts);
    }
  }
  return scenario.jobs.map((job) => ({
    key: job.key,
    plan: job.plan,
    enqueueAttempts: attempts.get(job.key)?.tried ?? 0,
    createdCount: attempts.get(job.key)?.created ?? 0,
    expect: job.expect,
  }));
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
    accepted: acceptedJobs(input.scenario, logs),
    timeline: input.timeline,
    logs,
    artefacts: [],
    secrets: input.scenario.secrets,
    atRest: input.atRest,
    leaseMs: input.scenario.settings.lease_ms,
    skewMarginMs: input.scenario.settings.skew_margin_ms,
  };
}
