#!/usr/bin/env node
import { watchStarvation } from '../kernel/starvation-watch.js';
import { type Command, parseFast } from './command.js';
import { withExitCode } from './exit-code.js';

/**
 * The entry the drill's own processes start from (the harness spawns this, a
 * person runs main.js). A drill starts several processes a scenario and again
 * on every restart, so each loads only its own command: the CLI's every
 * command, yargs and the scenario tooling cost a child more start-up than its
 * work. Anything else, or asking for help, goes to the whole CLI.
 */
// biome-ignore lint/suspicious/noExplicitAny: commands differ in their options' types, which run() checks for itself.
const CHILD_COMMANDS: Readonly<Record<string, () => Promise<Command<any>>>> = {
  worker: async () => (await import('./commands/worker.js')).workerCommand,
  producer: async () => (await import('./commands/producer.js')).producerCommand,
  coordinator: async () => (await import('./commands/coordinator.js')).coordinatorCommand,
  world: async () => (await import('./commands/world.js')).worldCommand,
  'world-host': async () => (await import('./commands/world-host.js')).worldHostCommand,
  enqueue: async () => (await import('./commands/enqueue.js')).enqueueCommand,
  probe: async () => (await import('./commands/probe.js')).probeCommand,
};

/** The whole CLI, as a URL that holds from dist/cli/ (this file compiled) and dist/bundle/ (it bundled) alike. */
const WHOLE_CLI = new URL('../cli/main.js', import.meta.url).href;

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const load = name === undefined ? undefined : CHILD_COMMANDS[name];
  if (load === undefined || rest.includes('--help')) {
    await import(WHOLE_CLI);
    return;
  }
  await withExitCode(async () => {
    const command = await load();
    // Loaded: from here, a late timer is the machine's or a wait's, not the module loading (the harness times start-up itself).
    watchStarvation();
    await command.run(parseFast(command.options, rest, command.positional ?? [], command.variadic));
  });
}

// No top-level await: the bundle of this entry is CommonJS (scripts/bundle-children.mjs says why).
void main();
