import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { statement } from '../adapters/sqlite/store.js';
import { readIncidents } from '../saga/incidents.js';
import type { TxRow } from '../saga/tx-log.js';
import { readLedger } from '../world/ledger.js';
import type { Accepted, Evidence, LogFile, TimelineEvent } from './evidence.js';
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
export function gatherEvidence(input: {
  scenario: ResolvedScenario;
  runDir: string;
  store: SqliteQueue;
  ledger: string;
  timeline: TimelineEvent[];
  atRest: boolean;
}): Evidence {
  const logs = readLogs(input.runDir);
  const jobs = input.store.jobs();
  return {
    scenario: input.scenario.name,
    jobs,
    events: input.store.events(),
    txLog: statement(input.store.db, 'SELECT * FROM agent_tx_log ORDER BY id').all() as TxRow[],
    incidents: readIncidents(input.store.db),
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
