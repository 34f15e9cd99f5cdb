import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, COMMANDS } from '../../src/cli/command-table.js';
import { EXIT } from '../../src/kernel/errors.js';

// The CLI a person runs (main.js, not the children's bundle): help is for people, and only main.js prints the grouped list.
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
// Each help is a node start (~150 ms); a few at once keeps the file quick without crowding out the other test files on two cores.
const AT_ONCE = 3;
const INTERNAL = ['worker', 'producer', 'coordinator', 'world', 'world-host'];

interface Help {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

const cli = async (args: readonly string[]): Promise<Help> => {
  const { exitCode, stdout, stderr } = await execa(process.execPath, [MAIN, ...args], { reject: false });
  return { exitCode, stdout, stderr };
};

/** `work` over `items`, at most `limit` at a time, results in the items' order. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * The entries of yargs' Positionals and Options sections, each with the text beside its name, yargs' own brackets
 * ([string], [default: …], [required], [choices: …]) taken out: what is left is the description a person reads.
 * An entry starts two spaces in; its wrapped lines start further in and belong to it.
 */
function helpEntries(help: string): Map<string, string> {
  const entries = new Map<string, string>();
  let inSection = false;
  let current: string | undefined;
  for (const line of help.split('\n')) {
    if (/^(Positionals|Options):$/.test(line)) {
      inSection = true;
      continue;
    }
    if (line.trim() === '' || /^\S/.test(line)) {
      inSection = false;
      current = undefined;
      continue;
    }
    if (!inSection) continue;
    const entry = /^ {2}(-{0,2}[a-z][\w-]*)(.*)$/.exec(line);
    if (entry) {
      current = entry[1]!;
      entries.set(current, entry[2]!);
    } else if (current !== undefined) entries.set(current, `${entries.get(current)} ${line}`);
  }
  for (const [name, text] of entries)
    entries.set(
      name,
      text
        .replace(/\[[^\]]*\]/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  return entries;
}

describe('queue-drill --help: the commands in groups, where to start, the exit codes', () => {
  let top: Help;
  let viaHelp: Help;
  beforeAll(async () => {
    expect(existsSync(MAIN), `${MAIN}: run npm run build`).toBe(true);
    [top, viaHelp] = await Promise.all([cli(['--help']), cli(['help'])]);
  });

  it('exits 0, and `queue-drill help` prints the same', () => {
    expect(top.exitCode, top.stderr).toBe(0);
    expect(viaHelp.exitCode, viaHelp.stderr).toBe(0);
    expect(viaHelp.stdout).toBe(top.stdout);
  });

  it('says what to run first, before any list', () => {
    const start = top.stdout.indexOf('Start with: queue-drill run scenarios.yaml');
    expect(start).toBeGreaterThan(-1);
    expect(start).toBeLessThan(top.stdout.indexOf(`${COMMAND_GROUPS[0]!.title}:`));
  });

  it('lists every command once, under its group, the groups in order and the internal ones last', () => {
    const headings = [...COMMAND_GROUPS.map((group) => `${group.title}:`), 'Options:', 'Exit codes:'];
    const at = headings.map((heading) => top.stdout.indexOf(`\n${heading}\n`));
    expect(
      at.every((index) => index > -1),
      headings.join(' | '),
    ).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(COMMAND_GROUPS.map((group) => group.title.split(' ')[0])).toEqual(['Drill', 'Compare', 'Your', 'Observe', 'Reference', 'Internal']);
    const listed = [...top.stdout.matchAll(/^ {2}queue-drill ([a-z][a-z-]*) /gm)].map((match) => match[1]);
    expect(listed).toEqual(COMMANDS.map((command) => command.name));
    // The drill's own processes are the last group, and nothing a person starts with comes after them.
    expect(listed.slice(-INTERNAL.length)).toEqual(INTERNAL);
    expect(COMMAND_GROUPS.at(-1)!.commands.map(([command]) => command.name)).toEqual(INTERNAL);
    // Not yargs' flat list of every command.
    expect(top.stdout).not.toContain('Commands:');
  });

  it('lists every exit code the CLI gives, each with its meaning', () => {
    const section = top.stdout.slice(top.stdout.indexOf('\nExit codes:\n'));
    const codes = [...section.matchAll(/^ {2}(\d) {2}(\S.*)$/gm)].map((match) => Number(match[1]));
    expect(codes).toEqual(Object.values(EXIT).sort((a, b) => a - b));
    expect(section).toMatch(/^ {2}2 {2}bad input/m);
  });

  it('refuses help for a command that does not exist (exit 2), and `help <command>` is `<command> --help`', async () => {
    const [unknown, bogusHelp, helpRun, runHelp] = await Promise.all([
      cli(['help', 'bogus']),
      cli(['bogus', '--help']),
      cli(['help', 'run']),
      cli(['run', '--help']),
    ]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/bogus: no such command/);
    expect(bogusHelp.exitCode).toBe(2);
    expect(bogusHelp.stderr).toMatch(/Unknown command: bogus/);
    expect(helpRun.exitCode, helpRun.stderr).toBe(0);
    expect(helpRun.stdout).toBe(runHelp.stdout);
  });
});

describe('queue-drill <command> --help: every option described', () => {
  const helps = new Map<string, Help>();
  beforeAll(async () => {
    const results = await inPool(COMMANDS, AT_ONCE, (command) => cli([command.name, '--help']));
    for (const [i, command] of COMMANDS.entries()) helps.set(command.name, results[i]!);
  }, 60_000);

  it('reads an option with no description as one (the parser itself, on what yargs prints for undescribed ones)', () => {
    const sample = [
      'Positionals:',
      '  job                                                                   [string]',
      '',
      'Options:',
      '  --help     Show help                                                 [boolean]',
      '  --seed                                                   [number] [default: 1]',
      '  --mode',
      '    [string] [required] [choices: "record", "sleep", "fail"] [default: "record"]',
      '  --out      where runs go [default: drill-runs/x], and',
      '             more of it                                                [string]',
      '',
    ].join('\n');
    expect(Object.fromEntries(helpEntries(sample))).toEqual({
      job: '',
      '--help': 'Show help',
      '--seed': '',
      '--mode': '',
      '--out': 'where runs go , and more of it',
    });
  });

  it.each(COMMANDS.map((command) => [command.name, command] as const))('%s --help exits 0 and describes every option', (name, command) => {
    const help = helps.get(name)!;
    expect(help.exitCode, help.stderr).toBe(0);
    const entries = helpEntries(help.stdout);
    const positional: readonly string[] = command.positional ?? [];
    const expected = [...Object.keys(command.options).map((option) => (positional.includes(option) ? option : `--${option}`)), '--help', '--version'];
    // Every option parsed (so none can hide from the check below), and nothing else.
    expect([...entries.keys()].sort()).toEqual(expected.sort());
    const undescribed = [...entries].filter(([, text]) => text === '').map(([option]) => option);
    expect(undescribed, `${name} --help: options with no description`).toEqual([]);
  });

  it('compare --help names every file it writes, compare.html among them', () => {
    const help = helps.get('compare')!.stdout.replace(/\s+/g, ' ');
    for (const file of ['compare.html', 'compare.md', 'compare.json', 'junit.xml']) expect(help).toContain(file);
  });

  it('selftest --help describes --file, --seed, --parallel and --json', () => {
    const entries = helpEntries(helps.get('selftest')!.stdout);
    for (const option of ['--file', '--seed', '--parallel', '--json']) expect(entries.get(option), option).not.toBe('');
  });
});
