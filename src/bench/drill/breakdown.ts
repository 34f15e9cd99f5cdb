import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { producersReleasedAt } from '../../report/producers-release.js';
import type { ScenarioReport } from '../../report/schema.js';
import { exclusiveDurations, type Span } from '../stats.js';

/** Where one scenario's wall time went: the harness's phases, and the drill phase split by what its timeline shows. */
export interface ScenarioBreakdown {
  name: string;
  verdict: string;
  /** From the scenario's start to its verdict (its phases summed). */
  wallMs: number;
  provisionMs: number;
  /** Within the drill: from its start until every first process was up (workers and coordinator started, producers let go). */
  startupMs: number;
  /** Within the drill: waits the faults forced (from each kill until its job was claimed again; each pause, delay or block). */
  faultWaitMs: number;
  /** Within the drill: restarted processes starting up, where no fault wait already covers it. */
  restartMs: number;
  /** Within the drill: from the last job's settling until the harness saw the drill at rest (its polling and quiet time). */
  restCheckMs: number;
  /** Within the drill: everything else, the jobs' own work and the workers' polling for it. */
  workMs: number;
  stopMs: number;
  evidenceMs: number;
  teardownMs: number;
  judgeMs: number;
}

// A time as written (fixed-width UTC text); 0 for one that does not parse, so it can never stretch a span.
const at = (text: string) => {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : 0;
};

/** When each process incarnation of a run said it had started (its log's `started` line), by "name#incarnation". */
export function startedTimes(runDir: string): Map<string, number> {
  const found = new Map<string, number>();
  if (!existsSync(runDir)) return found;
  for (const file of readdirSync(runDir)) {
    const name = /^(.+)\.(\d+)\.log$/.exec(file);
    if (!name) continue;
    for (const line of readFileSync(join(runDir, file), 'utf8').split('\n')) {
      const start = line.includes('"started"') ? startedAt(line) : null;
      if (start === null) continue;
      found.set(`${name[1]}#${name[2]}`, start);
      break;
    }
  }
  return found;
}

/** When a log line says its process started, or null for any other line (a child's stray output included). */
function startedAt(line: string): number | null {
  try {
    const parsed = JSON.parse(line) as { at?: unknown; event?: unknown };
    return parsed.event === 'started' && typeof parsed.at === 'string' ? at(parsed.at) : null;
  } catch {
    return null;
  }
}

/** A scenario report's breakdown; null for one that never ran (not judged) or was written without phases. */
export function breakdown(report: ScenarioReport, started: ReadonlyMap<string, number>): ScenarioBreakdown | null {
  const phases = report.phases;
  if (!phases) return null;
  const drillStart = at(phases.startedAt) + phases.provisionMs;
  const window: Span = { start: drillStart, end: drillStart + phases.drillMs };
  const { byCategory, rest } = exclusiveDurations(window, [
    ['startup', [{ start: drillStart, end: allUp(report, started, drillStart) }]],
    ['faultWait', faultWaits(report)],
    ['restart', restarts(report, started)],
    ['restCheck', restCheck(report)],
  ] as const);
  return {
    name: report.name,
    verdict: report.verdict,
    wallMs: phases.provisionMs + phases.drillMs + phases.stopMs + phases.evidenceMs + phases.teardownMs + phases.judgeMs,
    provisionMs: phases.provisionMs,
    startupMs: byCategory.startup,
    faultWaitMs: byCategory.faultWait,
    restartMs: byCategory.restart,
    restCheckMs: byCategory.restCheck,
    workMs: rest,
    stopMs: phases.stopMs,
    evidenceMs: phases.evidenceMs,
    teardownMs: phases.teardownMs,
    judgeMs: phases.judgeMs,
  };
}

/** When the last of the first processes was up: each first worker and the coordinator started, the producers let go. */
function allUp(report: ScenarioReport, started: ReadonlyMap<string, number>, drillStart: number): number {
  const firsts = report.timeline.filter((e) => e.kind === 'spawn' && e.process?.endsWith('#1') && !e.process.startsWith('world'));
  const times = firsts.flatMap((e) => {
    const t = started.get(e.process!);
    return t === undefined ? [] : [t];
  });
  const released = producersReleasedAt(report);
  if (released !== null) times.push(released);
  return times.length === 0 ? drillStart : Math.max(...times);
}

/** The waits faults forced: from each kill until its job was claimed again (or settled); each fault held for a time. */
function faultWaits(report: ScenarioReport): Span[] {
  const kills = report.recovery.flatMap((r) => {
    const end = r.reclaimedAt ?? r.settledAt;
    return end === null ? [] : [{ start: at(r.killedAt), end: at(end) }];
  });
  const held = report.timeline.flatMap((e) => (e.kind === 'fault-fired' && e.ms !== undefined ? [{ start: at(e.at), end: at(e.at) + e.ms }] : []));
  return [...kills, ...held];
}

/** Each restarted process, from its restart until it said it had started. */
function restarts(report: ScenarioReport, started: ReadonlyMap<string, number>): Span[] {
  return report.timeline.flatMap((e) => {
    const up = e.kind === 'restart' && e.process ? started.get(e.process) : undefined;
    return up === undefined ? [] : [{ start: at(e.at), end: up }];
  });
}

/** From the last state change of any job until the harness saw the drill at rest. */
function restCheck(report: ScenarioReport): Span[] {
  const rest = report.timeline.find((e) => e.kind === 'at-rest');
  const changes = report.jobs.flatMap((job) => job.events.flatMap((e) => (e.kind === 'transition' && at(e.at) > 0 ? [at(e.at)] : [])));
  if (!rest || changes.length === 0) return [];
  return [{ start: Math.max(...changes), end: at(rest.at) }];
}
