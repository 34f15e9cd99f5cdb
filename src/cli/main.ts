#!/usr/bin/env node
import { UsageError } from '../kernel/errors.js';
import { parseFast, withOptions, yargsCommandName } from './command.js';
import { COMMANDS, topLevelHelp } from './command-table.js';
import { withExitCode } from './exit-code.js';

/** Runs one command through yargs: its help, strict options, and the same checks as the fast path. */
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

/**
 * Where a command line that is not a command's fast path goes: 'top' for the grouped help (yargs would list every
 * command in one list), else the arguments yargs is given. `help [command]` is read as `[command] --help`; a first
 * word that names no command is refused here, so yargs never falls back to its own ungrouped list.
 */
function route(argv: readonly string[]): 'top' | string[] {
  const known = (word: string | undefined) => COMMANDS.some((command) => command.name === word);
  if (argv[0] === 'help') {
    if (argv.length === 1) return 'top';
    if (argv.length === 2 && known(argv[1])) return [argv[1]!, '--help'];
    throw new UsageError(`help ${argv.slice(1).join(' ')}: no such command\nRun queue-drill --help for the commands.`);
  }
  // Only --help and --version come before a command, so the first word that is no flag names it.
  const word = argv.find((arg) => !arg.startsWith('-'));
  if (word === undefined) return argv.includes('--help') ? 'top' : [...argv];
  if (!known(word)) throw new UsageError(`Unknown command: ${word}\nRun queue-drill --help for the commands.`);
  return [...argv];
}

/** How long a command's process may linger once its work is done and its output written. */
const LINGER_AFTER_WORK_MS = 2_000;

/** Runs a command: the fast parser for the processes a drill starts, yargs for people (help, strict options). */
async function main(argv: string[]): Promise<void> {
  await withExitCode(async () => {
    const [name, ...rest] = argv;
    const fast = COMMANDS.find((command) => command.fast && command.name === name);
    if (fast && !rest.includes('--help')) {
      await fast.run(parseFast(fast.options, rest, fast.positional ?? [], fast.variadic));
      return;
    }
    const routed = route(argv);
    // As wide as yargs' own help (80 columns, narrower on a narrow terminal), so the two read alike.
    if (routed === 'top') process.stdout.write(topLevelHelp(Math.min(80, process.stdout.columns || 80)));
    else await viaYargs(routed);
  });
}

await main(process.argv.slice(2));
// A call abandoned at its deadline (a frozen server's socket, src/kernel/deadline.ts) would keep the process alive for
// ever once its work is done: it ends a moment later instead. A process with nothing pending exits before this fires.
setTimeout(() => process.exit(), LINGER_AFTER_WORK_MS).unref();
