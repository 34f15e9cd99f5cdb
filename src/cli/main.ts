#!/usr/bin/env node
import { UsageError } from '../kernel/errors.js';
import { type Command, parseFast, withOptions, yargsCommandName } from './command.js';
import { approveCommand } from './commands/approve.js';
import { cleanCommand } from './commands/clean.js';
import { compareCommand } from './commands/compare.js';
import { contractCommand } from './commands/contract.js';
import { coordinatorCommand } from './commands/coordinator.js';
import { demoCommand } from './commands/demo.js';
import { docsCommand } from './commands/docs.js';
import { enqueueCommand } from './commands/enqueue.js';
import { exploreCommand } from './commands/explore.js';
import { historyCommand } from './commands/history.js';
import { keyCommand } from './commands/key.js';
import { mergeCommand } from './commands/merge.js';
import { producerCommand } from './commands/producer.js';
import { protocolCheckCommand } from './commands/protocol-check.js';
import { queuesCommand } from './commands/queues.js';
import { runCommand } from './commands/run.js';
import { schemaCommand } from './commands/schema.js';
import { selftestCommand } from './commands/selftest.js';
import { soakCommand } from './commands/soak.js';
import { statusCommand } from './commands/status.js';
import { workerCommand } from './commands/worker.js';
import { worldCommand } from './commands/world.js';
import { worldHostCommand } from './commands/world-host.js';
import { withExitCode } from './exit-code.js';

// Each command has its own option types; the table only needs what every command shares.
// biome-ignore lint/suspicious/noExplicitAny: commands differ in their options' types, which run() checks for itself.
const COMMANDS: readonly Command<any>[] = [
  runCommand,
  mergeCommand,
  exploreCommand,
  soakCommand,
  compareCommand,
  cleanCommand,
  queuesCommand,
  selftestCommand,
  contractCommand,
  protocolCheckCommand,
  demoCommand,
  keyCommand,
  workerCommand,
  producerCommand,
  worldCommand,
  worldHostCommand,
  coordinatorCommand,
  enqueueCommand,
  approveCommand,
  statusCommand,
  historyCommand,
  schemaCommand,
  docsCommand,
];

/** Runs one command through yargs: help, strict options, and the same checks as the fast path. */
async function viaYargs(argv: string[]): Promise<void> {
  const { default: yargs } = await import('yargs');
  let y = yargs(argv).scriptName('queue-drill');
  for (const command of COMMANDS) {
    y = y.command(
      yargsCommandName(command),
      command.describe,
      (b) => withOptions(b, command.options, command.positional ?? []),
      async (args) => {
        for (const [name, spec] of Object.entries(command.options as Record<string, { type: string; demandOption?: true }>)) {
          if (spec.demandOption && args[name] === undefined) throw new UsageError(`Missing required argument: ${name}`);
          if (spec.type === 'number' && args[name] !== undefined && !Number.isFinite(args[name])) {
            throw new UsageError(`--${name} must be a number`);
          }
        }
        await command.run(args as never);
      },
    );
  }
  await y
    .demandCommand(1, 'name a command')
    .strict()
    .fail((message, error) => {
      throw error ?? new UsageError(`${message}\nRun queue-drill --help for the commands and their options.`);
    })
    .help()
    .parseAsync();
}

/** How long a command's process may linger once its work is done and its output written. */
const LINGER_AFTER_WORK_MS = 2_000;

/** Runs a command: the fast parser for the processes a drill starts, yargs for people (help, strict options). */
async function main(argv: string[]): Promise<void> {
  await withExitCode(async () => {
    const [name, ...rest] = argv;
    const fast = COMMANDS.find((command) => command.fast && command.name === name);
    if (fast && !rest.includes('--help')) await fast.run(parseFast(fast.options, rest, fast.positional ?? [], fast.variadic));
    else await viaYargs(argv);
  });
}

await main(process.argv.slice(2));
// A call abandoned at its deadline (a frozen server's socket, src/kernel/deadline.ts) would keep the process alive for
// ever once its work is done: it ends a moment later instead. A process with nothing pending exits before this fires.
setTimeout(() => process.exit(), LINGER_AFTER_WORK_MS).unref();
