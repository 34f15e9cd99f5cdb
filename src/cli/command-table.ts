import type { Command } from './command.js';
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
import { EXIT_CODE_MEANINGS } from './exit-code.js';

/*
 * Every command of the CLI, in the groups `queue-drill --help` shows them in.
 * The table lives apart from main.ts (which runs the CLI as it is imported) so
 * a test can walk every command's help from the same list the CLI registers.
 * yargs lists commands in one flat list, so the top-level help is printed from
 * here; each command's own help (`queue-drill <command> --help`) stays yargs'.
 */

export interface CommandGroup {
  title: string;
  /** Each command with the line that stands for it in the list (its own --help gives its whole description). */
  // biome-ignore lint/suspicious/noExplicitAny: commands differ in their options' types, which run() checks for itself.
  commands: ReadonlyArray<readonly [command: Command<any>, summary: string]>;
}

/** The commands by what a person comes to do; the drill's own processes last, since nobody needs them to start. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    title: 'Drill (break a queue on purpose, judge how it recovers)',
    commands: [
      [runCommand, "the drill: a file's scenarios, and their report"],
      [mergeCommand, "join the reports of a drill's shards (run --shard)"],
      [exploreCommand, 'random fault schedules, each violation shrunk'],
      [soakCommand, 'many random schedules on a queue that must pass'],
      [demoCommand, 'a short run of real workers, with one crash'],
      [cleanCommand, 'remove what drills that are gone left on servers'],
    ],
  },
  {
    title: 'Compare (several queues under the same faults)',
    commands: [
      [compareCommand, 'the same drill on several queues: one matrix'],
      [queuesCommand, 'every queue --queue accepts, and its options'],
      [selftestCommand, 'prove the judge catches every broken variant'],
    ],
  },
  {
    title: 'Your queue (check it before you drill it)',
    commands: [
      [contractCommand, 'check a queue adapter against the contract'],
      [protocolCheckCommand, 'check a queue in any language (process protocol)'],
      [keyCommand, "print the idempotency key of a job's fields"],
    ],
  },
  {
    title: "Observe (a queue's jobs: look, approve, enqueue)",
    commands: [
      [statusCommand, "a queue's rates, and the jobs in review"],
      [historyCommand, "one job's life, its effects in the world included"],
      [approveCommand, 'approve the step a job in review waits on'],
      [enqueueCommand, 'enqueue a plan job (a JSON plan of steps)'],
    ],
  },
  {
    title: 'Reference',
    commands: [
      [schemaCommand, 'the JSON Schema of scenarios.yaml, or the protocol'],
      [docsCommand, 'the page of fault actions (docs/faults.md)'],
    ],
  },
  {
    title: 'Internal (started by the drill; by hand only to debug one)',
    commands: [
      [workerCommand, 'a worker process on a queue'],
      [producerCommand, 'enqueue a deterministic batch of jobs'],
      [coordinatorCommand, 'sweep expired leases, compensate failed sagas'],
      [worldCommand, 'the world service, with its ledger of effects'],
      [worldHostCommand, "the worlds of a drill's scenarios, in one process"],
    ],
  },
];

// biome-ignore lint/suspicious/noExplicitAny: as above.
export const COMMANDS: readonly Command<any>[] = COMMAND_GROUPS.flatMap((group) => group.commands.map(([command]) => command));

/** The first command to run: the shipped drill (README's `npm run drill`), which needs no server. */
const START_WITH = 'queue-drill run scenarios.yaml';

/** `text` in lines of at most `width` characters, broken between words (a longer word stands alone). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}

/** Rows of a name and its text, the text wrapped in a column of its own after the widest name. */
function columns(rows: ReadonlyArray<readonly [string, string]>, nameWidth: number, width: number): string[] {
  const textWidth = Math.max(24, width - 2 - nameWidth - 2);
  return rows.flatMap(([name, text]) => wrapWords(text, textWidth).map((line, i) => `  ${(i === 0 ? name : '').padEnd(nameWidth)}  ${line}`));
}

/** `queue-drill --help`: where to start, the commands in their groups, the options every command takes, and the exit codes. */
export function topLevelHelp(width = 80): string {
  const name = (command: { name: string }) => `queue-drill ${command.name}`;
  // One name column for every group, so the lists line up down the page. Each command's line starts `  queue-drill NAME`,
  // as yargs' list did: test/tooling/ci-recipes.test.ts reads the command names from those lines.
  const nameWidth = Math.max(...COMMANDS.map((command) => name(command).length));
  const paragraph = (text: string) => wrapWords(text, width - 2).map((line) => `  ${line}`);
  const section = (heading: string, lines: readonly string[]) => [heading, ...lines].join('\n');
  const options: Array<[string, string]> = [
    ['--help', 'show this help; after a command, that command’s'],
    ['--version', 'show the version'],
  ];
  const sections = [
    section(
      'Usage: queue-drill <command> [options]',
      paragraph('queue-drill <command> --help (or queue-drill help <command>): what it does, every option it takes'),
    ),
    section(
      `Start with: ${START_WITH}`,
      paragraph(
        'the shipped recovery drill on the embedded SQLite queue, no server needed; its report is in drill-runs/latest/ ' +
          '(report.html, report.md). In a project that installed queue-drill the file is node_modules/queue-drill/scenarios.yaml.',
      ),
    ),
    ...COMMAND_GROUPS.map((group) =>
      section(
        `${group.title}:`,
        columns(
          group.commands.map(([command, summary]) => [name(command), summary] as const),
          nameWidth,
          width,
        ),
      ),
    ),
    section('Options:', columns(options, '--version'.length, width)),
    section('Exit codes:', columns(Object.entries(EXIT_CODE_MEANINGS), 1, width)),
  ];
  return `${sections.join('\n\n')}\n`;
}
