import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NORMAL_START_MS, processOfSpanFile, readStarvedSpans, starvedEvents } from '../../src/drill/starvation-spans.js';
import type { TimelineEvent } from '../../src/judge/evidence.js';
import { utc } from '../../src/kernel/clock.js';

/*
 * The spans of one drill as the harness reads them: each process's file by
 * its name, a world host's within the drill's time alone, slow starts from
 * the timeline, and never a stop a fault made on purpose (a pause, a block).
 */

const T = Date.UTC(2026, 11, 2, 10, 0, 0);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function runDir(files: Record<string, Array<[number, number]>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'qd-spans-'));
  dirs.push(dir);
  for (const [name, spans] of Object.entries(files)) {
    const lines = spans.map(([from, ms]) => JSON.stringify({ from: T + from, to: T + from + ms, lateMs: ms }));
    // A half-written last line (a process killed mid-write) is skipped.
    writeFileSync(join(dir, name), `${lines.join('\n')}\n{"from": 12`);
  }
  return dir;
}

describe('readStarvedSpans', () => {
  it('names each span by its process, in time order', () => {
    const dir = runDir({ 'w1.2.log.starved': [[300, 120]], 'coordinator.1.log.starved': [[100, 80]], 'harness.starved': [[200, 60]] });
    const spans = readStarvedSpans(dir, []);
    expect(spans.map((s) => [s.process, s.ms, s.cause])).toEqual([
      ['coordinator#1', 80, 'stalled'],
      ['harness', 60, 'stalled'],
      ['w1#2', 120, 'stalled'],
    ]);
    expect(spans[2]!.from).toBe(utc(T + 300));
    expect(spans[2]!.to).toBe(utc(T + 420));
  });

  it('leaves out a stop a fault made on purpose: a pause until its SIGCONT, a block for its ms', () => {
    const dir = runDir({
      'w1.1.log.starved': [
        [1_000, 900],
        [5_000, 200],
      ],
      'w2.1.log.starved': [
        [2_000, 600],
        [4_000, 150],
      ],
    });
    const timeline: TimelineEvent[] = [
      { at: utc(T + 990), kind: 'fault-fired', process: 'w1#1', detail: 'pause', action: 'pause', ms: 500 },
      { at: utc(T + 1_905), kind: 'resume', process: 'w1#1', detail: 'SIGCONT' },
      { at: utc(T + 1_995), kind: 'fault-fired', process: 'w2#1', detail: 'block', action: 'block', ms: 600 },
    ];
    const spans = readStarvedSpans(dir, timeline);
    // The pause's and the block's spans are faults; the others, later, are starvation.
    expect(spans.map((s) => [s.process, s.ms])).toEqual([
      ['w2#1', 150],
      ['w1#1', 200],
    ]);
  });

  it('keeps a span during a delay or a hang: they wait without stopping the event loop, so the time lost is not theirs', () => {
    const dir = runDir({ 'w2.1.log.starved': [[2_000, 400]], 'w1.1.log.starved': [[3_000, 300]] });
    const timeline: TimelineEvent[] = [
      // w2 not run during its delay, which itself stops nothing (its lease renewals go on): the machine's.
      { at: utc(T + 2_080), kind: 'fault-fired', process: 'w2#1', detail: 'delay', action: 'delay', ms: 250 },
      { at: utc(T + 2_990), kind: 'fault-fired', process: 'w1#1', detail: 'hang', action: 'hang' },
    ];
    expect(readStarvedSpans(dir, timeline).map((s) => [s.process, s.ms])).toEqual([
      ['w2#1', 400],
      ['w1#1', 300],
    ]);
  });

  it("reads a world host's spans within the drill's time alone, and slow starts past a normal one", () => {
    const dir = runDir({});
    const host = runDir({
      'world-host.1.log.starved': [
        [-5_000, 300],
        [1_000, 90],
        [90_000, 400],
      ],
    });
    const timeline: TimelineEvent[] = [
      { at: utc(T + 900), kind: 'ready', process: 'w1#1', detail: 'up', ms: NORMAL_START_MS + 400 },
      { at: utc(T + 950), kind: 'ready', process: 'w2#1', detail: 'up', ms: NORMAL_START_MS - 100 },
    ];
    const spans = readStarvedSpans(dir, timeline, {
      extra: [{ file: join(host, 'world-host.1.log.starved'), process: 'world-host' }],
      from: T,
      to: T + 60_000,
    });
    expect(spans.map((s) => [s.process, s.ms, s.cause])).toEqual([
      ['w1#1', 400, 'start-up'],
      ['world-host', 90, 'stalled'],
    ]);
    expect(starvedEvents(spans).map((e) => [e.kind, e.process, e.at, e.until])).toEqual([
      ['starved', 'w1#1', utc(T + 500), utc(T + 900)],
      ['starved', 'world-host', utc(T + 1_000), utc(T + 1_090)],
    ]);
  });

  it('names span files as the timeline names processes', () => {
    expect(processOfSpanFile('w1.12.log.starved')).toBe('w1#12');
    expect(processOfSpanFile('harness.starved')).toBe('harness');
  });
});
