import type { NetworkControl } from '../../faults/action.js';
import { pointFaultAction } from '../../faults/actions/index.js';
import { type LinkEvent, NetworkLinks } from '../../faults/network/network-links.js';
import type { Clock } from '../../kernel/clock.js';
import type { WireWrite } from '../../kernel/vocabulary.js';
import type { WireRequestSpec } from '../../port/adapter.js';
import type { ResolvedScenario } from '../../scenarios/resolve.js';
import type { Timeline } from '../timeline.js';
import { processNames } from './role-args.js';

/** Whether a scenario has a network fault (partition, latency, reset): its processes then reach their servers through fault proxies. */
export function usesNetwork(scenario: Pick<ResolvedScenario, 'pointFaults'>): boolean {
  return scenario.pointFaults.some((fault) => pointFaultAction(fault.action)?.network === true);
}

/** A drill's network between its processes and their servers, as the supervisor and the controllers use it. */
export interface DrillNetwork {
  /** What a process's environment is given: its servers' URLs through its own proxies. */
  envFor(process: string): Record<string, string>;
  /** The process's links, for a network fault fired in it. */
  linkOf(process: string): NetworkControl | undefined;
  /** Names the incarnation a link event is drawn on (a process started again keeps its links). */
  placeEvents(current: (process: string) => { name: string; pid: number } | undefined): void;
  /** Takes back the drops no request met: each fired and did nothing, so the plan no longer counts it as a fault that happened. */
  takeBackDrops(plan: { idled(rule: string): void }): void;
  close(): Promise<void>;
}

/**
 * Puts a fault proxy between every process the scenario may start and each
 * server in `env` (the queue's, as provisioning named them), when the
 * scenario has a network fault; undefined otherwise (every process then
 * connects directly, at no cost). Each heal and each reset goes on the
 * timeline with the bytes held and the connections cut.
 */
export async function openDrillNetwork(
  scenario: ResolvedScenario,
  env: Readonly<Record<string, string>>,
  run: {
    clock: Clock;
    timeline: Timeline;
    scripts?: () => Promise<ReadonlyMap<string, string>>;
    /** The requests the drill's queue says carry its writes (QueueAdapter.wireRequests). */
    writes?: Readonly<Partial<Record<WireWrite, WireRequestSpec>>>;
  },
): Promise<DrillNetwork | undefined> {
  if (!usesNetwork(scenario)) return undefined;
  let current: (process: string) => { name: string; pid: number } | undefined = () => undefined;
  const onEvent = (event: LinkEvent): void => {
    // Its start is the fault's own line; a connection opening or closing is the process's business.
    if (event.kind !== 'healed' && event.kind !== 'reset' && event.kind !== 'reply-dropped') return;
    const process = current(event.process) ?? { name: event.process };
    run.timeline.record('network', `${event.server}: ${event.kind.replace('-', ' ')}, ${event.detail}`, process);
  };
  const scripts = await run.scripts?.();
  const links = await NetworkLinks.open(env, processNames(scenario), {
    clock: run.clock,
    seed: scenario.seed,
    onEvent,
    ...(scripts ? { scripts } : {}),
    ...(run.writes ? { writes: run.writes } : {}),
  });
  return {
    envFor: (process) => links.envFor(process),
    linkOf: (process) => links.of(process),
    placeEvents: (place) => {
      current = place;
    },
    takeBackDrops: (plan) => {
      for (const rule of links.unusedDrops()) plan.idled(rule);
    },
    close: () => links.close(),
  };
}
