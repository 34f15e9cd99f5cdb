import type { ResolvedScenario } from '../../scenarios/resolve.js';

/** What the drill's processes are told besides the scenario: where the queue is, the world, the jobs file, the producers' start barrier. */
export interface RoleContext {
  locator: string;
  worldUrl: string;
  jobsFile: string;
  /** The producers' start barrier (src/kernel/start-barrier.ts): started one by one, they begin together, so they really race on every key. */
  barrier: string;
}

/** One process of the drill: its name, its kind, and its command line (the same on every restart). */
export interface RoleSpec {
  name: string;
  kind: 'worker' | 'coordinator' | 'producer';
  args: string[];
}

/** The producers' names, p1 … pN: the processes racing on the same keys. */
export function producerNames(scenario: Pick<ResolvedScenario, 'settings'>): string[] {
  return Array.from({ length: scenario.settings.producers }, (_, index) => `p${index + 1}`);
}

/** The names of the producers that enqueue every key again (`enqueue_again`): p(N+1) … p(2N); none without it. */
function againProducerNames(scenario: Pick<ResolvedScenario, 'settings'>): string[] {
  const { producers, enqueue_again } = scenario.settings;
  return enqueue_again === false ? [] : Array.from({ length: producers }, (_, index) => `p${producers + index + 1}`);
}

/** The producers that enqueue every key again (`enqueue_again`): p(N+1) … p(2N), the same jobs, let go at once (no barrier). */
export function againProducerSpecs(scenario: ResolvedScenario, context: RoleContext): RoleSpec[] {
  const { queue } = scenario.settings;
  return againProducerNames(scenario).map((name) => ({
    name,
    kind: 'producer' as const,
    args: ['producer', '--store', context.locator, '--queue', queue, '--jobs', context.jobsFile, '--name', name],
  }));
}

/** The drill's processes, in the order they start: the coordinator (if the scenario has one), the producers, the workers. */
export function roleSpecs(scenario: ResolvedScenario, context: RoleContext): RoleSpec[] {
  const settings = scenario.settings;
  const common = ['--store', context.locator, '--queue', settings.queue, '--skew-margin-ms', String(settings.skew_margin_ms)];
  const timing = ['--lease-ms', String(settings.lease_ms), '--call-timeout-ms', String(settings.call_timeout_ms)];
  const roles: RoleSpec[] = [];
  if (settings.coordinator) {
    roles.push({
      name: 'coordinator',
      kind: 'coordinator',
      args: ['coordinator', ...common, '--world', context.worldUrl, '--tick-ms', String(settings.tick_ms), ...timing],
    });
  }
  for (const name of producerNames(scenario)) {
    roles.push({
      name,
      kind: 'producer',
      args: [
        'producer',
        '--store',
        context.locator,
        '--queue',
        settings.queue,
        '--jobs',
        context.jobsFile,
        '--name',
        name,
        '--start-barrier',
        context.barrier,
      ],
    });
  }
  scenario.workers.forEach((worker, index) => {
    const retry = settings.retry;
    roles.push({
      name: worker.id,
      kind: 'worker',
      args: [
        'worker',
        ...common,
        '--id',
        worker.id,
        '--world',
        context.worldUrl,
        ...timing,
        '--poll-ms',
        String(settings.poll_ms),
        '--seed',
        String(scenario.seed + index + 1),
        // One word: a clock behind (-90) given apart would read as an option of its own, not as the value.
        `--clock-skew-ms=${worker.clockSkewMs}`,
        '--retry-base-ms',
        String(retry.base_ms),
        '--retry-cap-ms',
        String(retry.cap_ms),
        '--retry-jitter-ms',
        String(retry.jitter_ms),
      ],
    });
  });
  return roles;
}

/** The name of every process the drill may start: the coordinator, the producers (those that enqueue again too), the workers. */
export function processNames(scenario: ResolvedScenario): string[] {
  return [
    ...(scenario.settings.coordinator ? ['coordinator'] : []),
    ...producerNames(scenario),
    ...againProducerNames(scenario),
    ...scenario.workers.map((worker) => worker.id),
  ];
}
