import { describe, expect, it } from 'vitest';
import { parseFast } from '../../../src/cli/command.js';
import { workerCommand } from '../../../src/cli/commands/worker.js';
import { roleSpecs } from '../../../src/drill/runner/role-args.js';
import { resolveScenarios } from '../../../src/scenarios/resolve.js';
import { ScenarioFileSchema } from '../../../src/scenarios/schema.js';

function scenario(extra: Record<string, unknown>) {
  const file = ScenarioFileSchema.parse({
    version: 1,
    plans: {},
    scenarios: [
      {
        name: 'one',
        description: 'd',
        workers: [{ id: 'w1' }, { id: 'w2', clock_skew_ms: 40 }],
        jobs: [
          {
            plan: {
              steps: [
                {
                  step_id: 's',
                  tool: 'read_file',
                  args: { path: 'a' },
                  has_side_effect: false,
                  idempotent: true,
                  reversible: true,
                  retry_policy: 'auto',
                  compensation: null,
                  requires_approval: false,
                },
              ],
            },
            expect: 'done',
          },
        ],
        ...extra,
      },
    ],
  });
  return resolveScenarios(file, { seed: 7 })[0]!;
}

const context = { locator: '/runs/one/queue.db', worldUrl: 'http://127.0.0.1:4000', jobsFile: '/runs/one/jobs.json', barrier: '/runs/one/start' };

describe('roleSpecs', () => {
  it('starts the coordinator, then the producers, then the workers, each told where the queue and the world are', () => {
    const roles = roleSpecs(scenario({ producers: 2 }), context);
    expect(roles.map((r) => [r.kind, r.name])).toEqual([
      ['coordinator', 'coordinator'],
      ['producer', 'p1'],
      ['producer', 'p2'],
      ['worker', 'w1'],
      ['worker', 'w2'],
    ]);
    for (const role of roles)
      expect(role.args.slice(role.args.indexOf('--store'), role.args.indexOf('--store') + 2)).toEqual(['--store', context.locator]);
    for (const role of roles.filter((r) => r.kind !== 'producer')) expect(role.args).toContain(context.worldUrl);
  });

  it('gives the producers one start barrier, so they race on every key', () => {
    const producers = roleSpecs(scenario({ producers: 3 }), context).filter((r) => r.kind === 'producer');
    for (const p of producers) expect(p.args.slice(p.args.indexOf('--start-barrier'))).toEqual(['--start-barrier', context.barrier]);
  });

  it('gives each worker its own seed from the drill’s, and its clock skew, ahead or behind, as the worker reads them', () => {
    const workers = roleSpecs(scenario({ workers: [{ id: 'w1' }, { id: 'w2', clock_skew_ms: 40 }, { id: 'w3', clock_skew_ms: -90 }] }), context);
    const read = workers.filter((r) => r.kind === 'worker').map((w) => parseFast(workerCommand.options, w.args.slice(1)));
    expect(read.map((args) => [args.id, args.seed, args['clock-skew-ms']])).toEqual([
      ['w1', 8, 0],
      ['w2', 9, 40],
      ['w3', 10, -90],
    ]);
  });

  it('leaves the coordinator out when the scenario has none', () => {
    expect(roleSpecs(scenario({ coordinator: false }), context).map((r) => r.kind)).not.toContain('coordinator');
  });
});
