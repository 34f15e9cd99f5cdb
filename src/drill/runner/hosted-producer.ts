import { appendFileSync } from 'node:fs';
import { pointFaultAction } from '../../faults/actions/index.js';
import { FAILPOINT_DESCRIPTORS } from '../../faults/points.js';
import { type Clock, utc } from '../../kernel/clock.js';
import type { JobsFileEntry } from '../../kernel/jobs-file.js';
import type { QueueAdapter, QueueConnection } from '../../port/adapter.js';
import { enqueuePlans } from '../../port/enqueue-plans.js';
import { isShippedQueue } from '../../queues/connects-only-here.js';
import { hostedProducerReleasedNote } from '../../report/producers-release.js';
import type { ResolvedScenario } from '../../scenarios/resolve.js';
import type { Timeline } from '../timeline.js';

/*
 * A scenario's one producer, run by the harness itself when nothing of the
 * scenario can touch it: it races nobody (one producer, no second wave), no
 * fault rule stops at a producer's point, no fault reaches the network or a
 * server between it and the queue, and the queue is one of queue-drill's own
 * with no server (the reference on SQLite, its broken variants). Such a
 * producer process only ever enqueued the jobs in order and said so, and its
 * start cost a process (0.05 to 0.15 s of CPU, about 15% of a schedule of
 * explore). The harness enqueues them through its own connection to the
 * queue, as the producer would through its own, and writes the producer's log
 * (p1.1.log) line for line as the process does (src/port/enqueue-plans.ts),
 * which is what the judge reads of producers (src/drill/accepted-jobs.ts).
 * Every producer a fault or a race can reach stays a real process.
 */

/** Why the scenario's producer must be a process, or null when the harness may host it. */
export function producerProcessNeeded(scenario: ResolvedScenario, impl: QueueAdapter): string | null {
  const { settings } = scenario;
  if (settings.producers !== 1) return `${settings.producers} producers race`;
  if (settings.enqueue_again !== false) return 'its producers enqueue every key again';
  if ((impl.needs ?? []).length > 0) return 'the queue lives on a server';
  // A user's queue (a module, a process) answers the harness's connection in ways of its own: its producer stays its own.
  if (!isShippedQueue(impl)) return "the queue is the user's own";
  for (const rule of scenario.pointFaults) {
    if (FAILPOINT_DESCRIPTORS[rule.point].passedBy === 'producer') return `rule ${rule.id} stops at a producer's point`;
    const action = pointFaultAction(rule.action);
    if (action?.network || rule.action === 'restart_server') return `rule ${rule.id} reaches the network or a server`;
  }
  return null;
}

/** The producer the harness runs: started once its release comes, producing until every job was enqueued. */
export class HostedProducer {
  private running: Promise<void> | null = null;
  private finished = false;
  /** What stopped it other than an enqueue the queue refused (those are lines of its log): the drill's error. */
  error: string | null = null;

  constructor(
    private readonly run: {
      name: string;
      /** The scenario's jobs, as the jobs file gives them to a producer process. */
      jobs: readonly JobsFileEntry[];
      /** Its log, made at its construction as a process's is at its spawn. */
      logFile: string;
      queue: Pick<QueueConnection, 'enqueue'>;
      clock: Clock;
      timeline: Timeline;
    },
  ) {}

  /** Whether it has jobs left to enqueue: until it has finished (so before its start too). */
  get producing(): boolean {
    return !this.finished;
  }

  /** Starts enqueueing (once). */
  start(): void {
    if (this.running) return;
    const { name, jobs, logFile, queue, clock, timeline } = this.run;
    timeline.record('note', hostedProducerReleasedNote(name, utc(clock.now()), jobs.length));
    const write = (line: string) => appendFileSync(logFile, line);
    this.running = enqueuePlans(queue, jobs, { name, clock, write, pass: async () => undefined })
      .catch((error: unknown) => {
        this.error = `${name}, the harness's producer, failed: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => {
        this.finished = true;
      });
  }

  /** Waits until it has finished (at once if never started). */
  async settled(): Promise<void> {
    await this.running;
  }
}
