import { describe, expect, it } from 'vitest';
import { controlTimeline } from '../../../src/drill/runner/control-timeline.js';
import { Timeline } from '../../../src/drill/timeline.js';
import type { ControlEvent } from '../../../src/faults/controller.js';
import { ManualClock } from '../../../src/kernel/clock.js';

const base = {
  at: 0,
  child: 'w1',
  incarnation: 2,
  pid: 4242,
  point: 'after_write' as const,
  context: { point: 'after_write' as const, worker: 'w1', jobId: '3', attempt: 2, step: 'charge' },
};

function event(kind: ControlEvent['kind'], action: ControlEvent['action']): ControlEvent {
  return { ...base, kind, action, ...(kind === 'hit' ? {} : { rule: 'f1' }) };
}

describe('controlTimeline', () => {
  it('records where each process got to, each fault fired with what its action adds, and each held process going on', () => {
    const timeline = new Timeline(new ManualClock());
    const seen = controlTimeline(timeline);
    seen.onControl(event('hit', { type: 'continue' }));
    seen.onControl({ ...event('hit', { type: 'continue' }), point: 'heartbeat' });
    seen.onControl(event('fired', { type: 'crash' }));
    seen.onControl(event('fired', { type: 'pause', ms: 900 }));
    expect(seen.held()).toBe(1);
    seen.onControl(event('resumed', { type: 'pause', ms: 900 }));
    expect(seen.held()).toBe(0);
    expect(timeline.events.map((e) => [e.kind, e.detail, e.process, e.point, e.job, e.attempt, e.step, e.action, e.ms])).toEqual([
      ['fault-hit', 'w1 at after_write step charge job 3 attempt 2', 'w1#2', 'after_write', '3', 2, 'charge', undefined, undefined],
      ['fault-fired', 'crash at after_write step charge job 3 attempt 2 (rule f1)', 'w1#2', 'after_write', '3', 2, 'charge', 'crash', undefined],
      ['kill', 'SIGKILL while held at after_write step charge job 3 attempt 2', 'w1#2', 'after_write', '3', 2, 'charge', 'crash', undefined],
      ['fault-fired', 'pause at after_write step charge job 3 attempt 2 (rule f1)', 'w1#2', 'after_write', '3', 2, 'charge', 'pause', 900],
      ['pause', 'SIGSTOP for 900 ms at after_write step charge job 3 attempt 2', 'w1#2', 'after_write', '3', 2, 'charge', 'pause', 900],
      ['resume', 'SIGCONT after the pause at after_write step charge job 3 attempt 2', 'w1#2', 'after_write', '3', 2, 'charge', undefined, undefined],
    ]);
  });
});
