import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StarvedSpan, TimelineEvent } from '../judge/evidence.js';
import { utc } from '../kernel/clock.js';
import type { StarvedLine } from '../kernel/starvation-watch.js';

/*
 * The starved spans of one drill, as its processes measured them
 * (src/kernel/starvation-watch.ts: each process appends to NAME.N.log.starved
 * beside its log; the harness measures itself into harness.starved, and
 * a world host serving several drills writes to a file of its own, read here
 * for this drill's time alone). A span a fault explains is left out: a pause
 * or a block stops its process's event loop on purpose, and a stop the drill
 * asked for is a fault, never starvation (the two never mix). A delay or a
 * hang waits without stopping it (the process's timers, its lease renewals
 * among them, go on), so a span then is the machine's: a BullMQ holder not
 * run for 303 ms during its 250 ms delay lost its 400 ms lock
 * (zombie-complete, once in three), and the span was dropped as the delay's,
 * so the job's other path was blamed on BullMQ. A span that began before the
 * fault (a process already starved when a fault then held or killed it) is
 * the machine's, and stays.
 */

/** The fault actions that stop their process's event loop on purpose: SIGSTOP, and a block of its own thread. */
const STOPS_THE_LOOP: ReadonlySet<string> = new Set(['pause', 'block']);

const SUFFIX = '.starved';

/** A span file's lines; a line cut short by a kill, or not a span, is skipped. */
function readLines(file: string): StarvedLine[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const lines: StarvedLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const line = JSON.parse(raw) as Partial<StarvedLine>;
      if (typeof line.from === 'number' && typeof line.to === 'number' && typeof line.lateMs === 'number' && line.to >= line.from) {
        lines.push({ from: line.from, to: line.to, lateMs: line.lateMs });
      }
    } catch {
      // Half a line: the process was killed while writing it.
    }
  }
  return lines;
}

/** The process a span file speaks for: w1.2.log.starved is w1#2 (as the timeline names it); harness.starved is the harness. */
export function processOfSpanFile(name: string): string {
  const base = name.slice(0, -SUFFIX.length);
  const match = /^(.+)\.(\d+)\.log$/.exec(base);
  return match ? `${match[1]}#${match[2]}` : base;
}

/**
 * Where a fault's deliberate stop of a process begins: its firing (a pause's SIGSTOP, a block), for its ms,
 * with a little grace. A span that begins in one is the fault's.
 */
function heldWindows(timeline: readonly TimelineEvent[], graceMs: number): Map<string, Array<[number, number]>> {
  const windows = new Map<string, Array<[number, number]>>();
  for (const event of timeline) {
    if (event.kind !== 'fault-fired' || event.process === undefined || !STOPS_THE_LOOP.has(event.action ?? '')) continue;
    const at = Date.parse(event.at);
    windows.set(event.process, [...(windows.get(event.process) ?? []), [at - graceMs, at + (event.ms ?? 0) + graceMs]]);
  }
  return windows;
}

/** How long a process may take from spawn to its first log line before the rest of its start counts as starved. */
export const NORMAL_START_MS = 500;

/**
 * Every start-up the timeline shows (spawn or restart to `ready`), the part of
 * it past a normal start as a span: a process the machine took long to start
 * was starved of the CPU it loads with.
 */
function slowStarts(timeline: readonly TimelineEvent[]): StarvedSpan[] {
  const spans: StarvedSpan[] = [];
  for (const event of timeline) {
    if (event.kind !== 'ready' || event.process === undefined || event.ms === undefined || event.ms <= NORMAL_START_MS) continue;
    const to = Date.parse(event.at);
    spans.push({
      process: event.process,
      from: utc(to - event.ms + NORMAL_START_MS),
      to: event.at,
      ms: event.ms - NORMAL_START_MS,
      cause: 'start-up',
    });
  }
  return spans;
}

/**
 * The drill's starved spans in time order: every process's own (its file in
 * `runDir`, and each `extra` file, such as a world host's, within
 * [from, to]), its slow start-ups, less what a fault explains.
 */
export function readStarvedSpans(
  runDir: string,
  timeline: readonly TimelineEvent[],
  options: { extra?: ReadonlyArray<{ file: string; process: string }>; from?: number; to?: number; graceMs?: number } = {},
): StarvedSpan[] {
  const files: Array<{ file: string; process: string }> = [];
  try {
    for (const name of readdirSync(runDir)) if (name.endsWith(SUFFIX)) files.push({ file: join(runDir, name), process: processOfSpanFile(name) });
  } catch {
    // No run directory: no spans.
  }
  files.push(...(options.extra ?? []));
  const held = heldWindows(timeline, options.graceMs ?? 100);
  const from = options.from ?? Number.NEGATIVE_INFINITY;
  const to = options.to ?? Number.POSITIVE_INFINITY;
  const spans: StarvedSpan[] = [];
  for (const { file, process } of files) {
    const windows = held.get(process) ?? [];
    for (const line of readLines(file)) {
      if (line.to < from || line.from > to) continue;
      if (windows.some(([a, b]) => line.from >= a && line.from <= b)) continue;
      spans.push({ process, from: utc(line.from), to: utc(line.to), ms: line.lateMs, cause: 'stalled' });
    }
  }
  spans.push(...slowStarts(timeline));
  return spans.sort((a, b) => a.from.localeCompare(b.from) || a.process.localeCompare(b.process));
}

/** The spans as timeline events (kind `starved`), for the views that draw a drill's lanes. */
export function starvedEvents(spans: readonly StarvedSpan[]): TimelineEvent[] {
  return spans.map((span) => ({
    at: span.from,
    kind: 'starved',
    process: span.process,
    detail:
      span.cause === 'start-up'
        ? `${span.process} took ${span.ms + NORMAL_START_MS} ms to start (${span.ms} ms past a normal start)`
        : `${span.process} was not run for ${span.ms} ms (until ${span.to.slice(11)})`,
    ms: span.ms,
    until: span.to,
  }));
}
