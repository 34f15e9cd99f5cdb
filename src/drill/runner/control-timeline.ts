import { pointFaultAction } from '../../faults/actions/index.js';
import type { ControlEvent } from '../../faults/controller.js';
import type { Timeline } from '../timeline.js';

/** Where a process stood at a failpoint, as one phrase: "after_write step charge job 3 attempt 2". */
export function whereOf(event: Pick<ControlEvent, 'point' | 'context'>): string {
  const { context } = event;
  const parts: string[] = [event.point];
  if (context.step) parts.push(`step ${context.step}`);
  if (context.jobId !== undefined) parts.push(`job ${context.jobId}`);
  if (context.attempt !== undefined) parts.push(`attempt ${context.attempt}`);
  return parts.join(' ');
}

/**
 * What the harness writes on its timeline as the failpoint controllers report:
 * where each process got to (heartbeats are too many to keep), each fault that
 * fired (with what its action adds: a kill, a pause), and each held process
 * that went on; and how many processes a fault holds right now (a drill is not
 * at rest while one is held).
 */
export function controlTimeline(timeline: Timeline): { onControl(event: ControlEvent): void; held(): number } {
  let held = 0;
  return {
    held: () => held,
    onControl(event) {
      const process = { name: `${event.child}#${event.incarnation}`, pid: event.pid };
      const { context } = event;
      const where = whereOf(event);
      const place = { point: event.point, worker: context.worker, job: context.jobId, attempt: context.attempt, step: context.step };
      if (event.kind === 'hit') {
        if (event.point !== 'heartbeat') timeline.record('fault-hit', `${context.worker} at ${where}`, process, place);
        return;
      }
      if (event.action.type === 'continue') return;
      const action = pointFaultAction(event.action.type)!;
      if (event.kind === 'resumed') {
        held--;
        timeline.record('resume', action.resumeDetail?.(where) ?? `SIGCONT after the ${action.name} at ${where}`, process, place);
        return;
      }
      if (action.holds) held++;
      const fired = { ...place, action: event.action.type, ...('ms' in event.action ? { ms: event.action.ms } : {}) };
      timeline.record('fault-fired', `${action.name} at ${where} (rule ${event.rule})`, process, fired);
      for (const entry of action.timeline(event.action as never, where)) timeline.record(entry.kind, entry.detail, process, fired);
    },
  };
}
