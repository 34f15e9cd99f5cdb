import { producersReleasedAt } from '../producers-release.js';
import type { JobEvent, ScenarioReport } from '../schema.js';

/*
 * A scenario's life laid out for a timeline, from the report alone: one lane
 * per process incarnation (w1#1, w1#2 after its restart, the coordinator, the
 * producers) and one for the world, time along the axis. The queue's history
 * names a worker (w1), not its incarnation: an event goes to the incarnation
 * of that name that was alive at its time. What lands where:
 *   - a lease span from a claim to the transition that ended it, in the
 *     holder's lane, labelled with its job and epoch;
 *   - checkpoints, refused writes, releases and reviews at their writer;
 *   - effects the world applied, in the world's lane;
 *   - the harness's own events (faults fired, kills, pauses, restarts) at the
 *     process they happened to;
 *   - each span the machine did not run a process (`starved`, from `at` to
 *     `until`) in that process's lane; a process with no lane of its own (the
 *     harness, a world host shared by the drill) gets one, so no span is lost.
 * A job's marks name their line in the job's history (`text`), which the page
 * prints under the timeline; and the layout says when the producers were
 * released (`startup`), where the drill proper begins.
 */

/** A lane: a process incarnation, or the world. */
export interface Lane {
  id: string;
  label: string;
  /** When it started and ended (ms since the scenario's first event); undefined: it outlived the drill. */
  from: number;
  to: number | undefined;
}

/** What a mark stands for, which decides its shape and its legend. */
export type MarkKind =
  | 'lease'
  | 'pause'
  | 'partition'
  | 'starved'
  | 'claim'
  | 'release'
  | 'review'
  | 'done'
  | 'refused'
  | 'checkpoint'
  | 'effect'
  | 'incident'
  | 'fault'
  | 'kill'
  | 'network'
  | 'restart'
  | 'enqueue'
  | 'note';

/** One thing drawn on a lane: a point, or a span when `end` is given. */
export interface Mark {
  /** Its element id in the page, so evidence can point at it. */
  id: string;
  lane: string;
  kind: MarkKind;
  at: number;
  end?: number;
  label: string;
  /** The full text shown on focus or hover. */
  title: string;
  /** The element id of its line in the job's history (a job's mark links to it, and it back); none for the harness's own. */
  text?: string;
}

export interface Layout {
  lanes: Lane[];
  marks: Mark[];
  /** The span of the whole drill, in ms. */
  span: number;
  /** When the producers were released (ms since the first event): what came before is start-up; 0 when the timeline does not say. */
  startup: number;
}

const WORLD = 'world';

function ms(at: string, origin: number): number {
  return Math.max(0, Date.parse(at) - origin);
}

/** The incarnations of each process, from the harness's spawn and restart events. */
function processLanes(scenario: ScenarioReport, origin: number): Lane[] {
  const lanes: Lane[] = [];
  for (const event of scenario.timeline) {
    if ((event.kind === 'spawn' || event.kind === 'restart') && event.process) {
      if (!lanes.some((lane) => lane.id === event.process))
        lanes.push({ id: event.process, label: event.process, from: ms(event.at, origin), to: undefined });
    }
    if (event.kind === 'exit' && event.process) {
      const lane = lanes.find((l) => l.id === event.process);
      if (lane) lane.to = ms(event.at, origin);
    }
  }
  return lanes;
}

/** The incarnation of `name` (w1) alive at `at`, or the last one started before it. */
function laneOf(lanes: readonly Lane[], name: string | null, at: number): string | undefined {
  if (name === null) return undefined;
  const mine = lanes.filter((lane) => lane.id === name || lane.id.startsWith(`${name}#`));
  const alive = mine.filter((lane) => lane.from <= at && (lane.to === undefined || at <= lane.to));
  return (alive.at(-1) ?? mine.filter((lane) => lane.from <= at).at(-1) ?? mine[0])?.id;
}

/** An enqueue names no producer in the history: it goes to the first producer alive at its time. */
function producerLane(lanes: readonly Lane[], at: number): string | undefined {
  return lanes.find((lane) => /^p\d+#/.test(lane.id) && lane.from <= at && (lane.to === undefined || at <= lane.to + 50))?.id;
}

/** The element id of a job's event: what evidence lines point at. */
export function jobEventId(scenarioIndex: number, jobId: string, event: JobEvent): string {
  const n = event.kind === 'checkpoint' || event.kind === 'incident' ? event.id : event.seq;
  const letter = { transition: 'e', refused: 'e', checkpoint: 't', effect: 'f', incident: 'i' }[event.kind];
  return `s${scenarioIndex}-j${jobId}-${letter}${n}`;
}

/** The element id of a job event's line in the job's history under the timeline (its mark's id, and what the mark links to). */
export function lineIdOf(markId: string): string {
  return `${markId}-text`;
}

function transitionKind(event: Extract<JobEvent, { kind: 'transition' | 'refused' }>): MarkKind {
  if (event.kind === 'refused') return 'refused';
  if (event.from === null) return 'enqueue';
  if (event.to === 'running') return 'claim';
  if (event.to === 'done') return 'done';
  if (event.to === 'review') return 'review';
  return 'release';
}

/** The mark of a job's checkpoint (at its writer), effect or incident (in the world's lane); each links to its line in the history. */
function recordMark(
  event: Exclude<JobEvent, { kind: 'transition' | 'refused' }>,
  jobId: string,
  id: string,
  at: number,
  lanes: readonly Lane[],
): Mark {
  const mark = { id, text: lineIdOf(id), at };
  switch (event.kind) {
    case 'checkpoint':
      return {
        ...mark,
        lane: laneOf(lanes, event.worker, at) ?? WORLD,
        kind: 'checkpoint',
        label: `${event.step} ${event.action} ${event.status}`,
        title: `job ${jobId} tx #${event.id}: ${event.step} ${event.action} ${event.status} (epoch ${event.epoch}, ${event.worker})`,
      };
    case 'effect':
      return {
        ...mark,
        lane: WORLD,
        kind: 'effect',
        label: `${event.step}${event.compensation ? ' undo' : ''} e${event.epoch ?? '?'}`,
        title:
          `job ${jobId}: the world applied ${event.tool} (${event.key}) for ${event.worker}, epoch ${event.epoch ?? 'none'}` +
          `${event.compensation ? ', a compensation' : ''}`,
      };
    case 'incident':
      return {
        ...mark,
        lane: WORLD,
        kind: 'incident',
        label: `incident ${event.step}`,
        title: `job ${jobId} incident #${event.id} at step ${event.step}`,
      };
  }
}

function jobMarks(scenario: ScenarioReport, index: number, lanes: readonly Lane[], origin: number): Mark[] {
  const marks: Mark[] = [];
  for (const job of scenario.jobs) {
    if (job.id === null) continue;
    const jobId = job.id;
    let open: { at: number; lane: string; epoch: number; id: string } | undefined;
    const closeLease = (at: number, how: string) => {
      if (!open) return;
      marks.push({
        id: `${open.id}-lease`,
        lane: open.lane,
        kind: 'lease',
        at: open.at,
        end: at,
        label: `job ${jobId} e${open.epoch}`,
        title: `job ${jobId}: lease of epoch ${open.epoch}, ${how}`,
        // A lease is told in the history by its claim.
        text: lineIdOf(open.id),
      });
      open = undefined;
    };
    for (const event of job.events) {
      const at = ms(event.at, origin);
      const id = jobEventId(index, jobId, event);
      if (event.kind === 'transition' || event.kind === 'refused') {
        const kind = transitionKind(event);
        const lane =
          laneOf(lanes, event.worker, at) ?? laneOf(lanes, event.actor, at) ?? (kind === 'enqueue' ? producerLane(lanes, at) : undefined) ?? WORLD;
        if (event.kind === 'transition' && event.from === 'running')
          closeLease(at, `ended ${event.from}→${event.to} by ${event.worker ?? event.actor}`);
        if (kind === 'claim') {
          closeLease(at, `taken over by a claim of ${event.worker}`);
          open = { at, lane, epoch: event.epoch, id };
        }
        const change = event.from === null ? `→${event.to}` : `${event.from}→${event.to}`;
        marks.push({
          id,
          text: lineIdOf(id),
          lane,
          kind,
          at,
          label: kind === 'refused' ? `refused ${event.to}` : change,
          title:
            `job ${jobId} event #${event.seq}: ${kind === 'refused' ? `a write (${event.to}) refused` : change} by ${event.worker ?? event.actor}, ` +
            `epoch ${event.epoch}, attempt ${event.attempt}: ${event.reason}`,
        });
      } else if (event.kind === 'checkpoint' || event.kind === 'effect' || event.kind === 'incident') {
        marks.push(recordMark(event, jobId, id, at, lanes));
      }
    }
    closeLease(ms(scenario.timeline.at(-1)?.at ?? job.events.at(-1)?.at ?? new Date(origin).toISOString(), origin), 'still open at the end');
  }
  return marks;
}

function harnessMarks(scenario: ScenarioReport, index: number, origin: number): Mark[] {
  const marks: Mark[] = [];
  const pauses = new Map<string, number>();
  const partitions = new Map<string, number>();
  scenario.timeline.forEach((event, n) => {
    if (!event.process) return;
    const at = ms(event.at, origin);
    const id = `s${index}-h${n}`;
    const mark = (kind: MarkKind, label: string) =>
      marks.push({ id, lane: event.process!, kind, at, label, title: `${event.process}: ${event.detail}` });
    switch (event.kind) {
      case 'fault-fired':
        mark('fault', `${event.action ?? 'fault'} @ ${event.point ?? '?'}`);
        break;
      case 'kill':
        mark('kill', 'SIGKILL');
        break;
      case 'restart':
        mark('restart', 'restart');
        break;
      case 'pause':
        pauses.set(event.process, at);
        break;
      case 'network':
        // A partition is a span from its start to its heal (the `resume`); a reset, a lost reply, a slow link, a point.
        if (event.detail.startsWith('partitioned')) partitions.set(event.process, at);
        else if (!/: healed, /.test(event.detail)) mark('network', networkLabel(event.detail));
        break;
      case 'starved': {
        // A span with no end (a report edited by hand) is drawn as long as it says it was late.
        const end = event.until !== undefined ? ms(event.until, origin) : at + (event.ms ?? 0);
        const label = `starved ${event.ms ?? end - at} ms`;
        marks.push({
          id,
          lane: event.process,
          kind: 'starved',
          at,
          end,
          label,
          title: `${event.process} starved (the machine, not a fault): ${event.detail}`,
        });
        break;
      }
      case 'resume': {
        const cut = partitions.get(event.process);
        if (cut !== undefined) {
          marks.push({
            id,
            lane: event.process,
            kind: 'partition',
            at: cut,
            end: at,
            label: 'partitioned',
            title: `${event.process}: ${event.detail}`,
          });
          partitions.delete(event.process);
          break;
        }
        const from = pauses.get(event.process);
        if (from !== undefined)
          marks.push({ id, lane: event.process, kind: 'pause', at: from, end: at, label: 'paused', title: `${event.process}: ${event.detail}` });
        pauses.delete(event.process);
        break;
      }
      default:
        break;
    }
  });
  return marks;
}

/** A network event's mark label: what happened to the link, in a word or two. */
function networkLabel(detail: string): string {
  if (/reply dropped/.test(detail)) return 'reply lost';
  if (/: reset, /.test(detail)) return 'reset';
  if (/each way/.test(detail)) return 'slow link';
  if (/to be lost, armed/.test(detail)) return 'drop armed';
  return 'network';
}

/** The lanes and marks of one scenario (its index in the report names its elements). */
export function layoutScenario(scenario: ScenarioReport, index: number): Layout {
  const times = [
    ...scenario.timeline.flatMap((e) => [Date.parse(e.at), ...(e.until !== undefined ? [Date.parse(e.until)] : [])]),
    ...scenario.jobs.flatMap((job) => job.events.map((e) => Date.parse(e.at))),
  ].filter((t) => Number.isFinite(t));
  const origin = times.length > 0 ? Math.min(...times) : 0;
  const span = times.length > 0 ? Math.max(1, Math.max(...times) - origin) : 1;
  const lanes = processLanes(scenario, origin);
  const marks = [...jobMarks(scenario, index, lanes, origin), ...harnessMarks(scenario, index, origin)];
  for (const lane of new Set(marks.map((mark) => mark.lane)))
    if (lane !== WORLD && !lanes.some((l) => l.id === lane)) lanes.push({ id: lane, label: lane, from: 0, to: undefined });
  if (marks.some((mark) => mark.lane === WORLD)) lanes.push({ id: WORLD, label: 'world (effects)', from: 0, to: undefined });
  // Only lanes with something on them (a world with no effects, a producer that only enqueued, stay visible by their marks).
  const used = new Set(marks.map((mark) => mark.lane));
  const released = producersReleasedAt(scenario);
  const startup = released !== null && released > origin && released - origin < span ? released - origin : 0;
  return { lanes: lanes.filter((lane) => used.has(lane.id)), marks, span, startup };
}
