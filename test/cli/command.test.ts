import { describe, expect, it } from 'vitest';
import { parseFast } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/command-table.js';
import { UsageError } from '../../src/kernel/errors.js';

const OPTIONS = {
  store: { type: 'string', demandOption: true },
  'lease-ms': { type: 'number', default: 30_000 },
  mode: { type: 'string', choices: ['a', 'b'] },
  drained: { type: 'boolean', default: false },
} as const;

describe('parseFast: the child-process argument parser', () => {
  it('gives values, numbers and defaults', () => {
    expect(parseFast(OPTIONS, ['--store', 'q.db', '--lease-ms=500', '--drained'])).toEqual({
      store: 'q.db',
      'lease-ms': 500,
      mode: undefined,
      drained: true,
    });
  });

  it.each([
    [['--lease-ms', '5'], /Missing required argument: store/],
    [['--store', 'q', '--lease-ms', 'soon'], /--lease-ms must be a number/],
    [['--store', 'q', '--mode', 'c'], /--mode must be one of a, b/],
    [['--store', 'q', '--bogus', '1'], /Unknown option '--bogus'/],
    [['--store', 'q', 'extra'], /positional/],
  ])('refuses %j as bad input', (argv, message) => {
    expect(() => parseFast(OPTIONS, argv)).toThrow(UsageError);
    expect(() => parseFast(OPTIONS, argv)).toThrow(message);
  });
});

describe('parseFast with positionals', () => {
  const WITH_JOB = { job: { type: 'number', demandOption: true }, store: { type: 'string', demandOption: true } } as const;

  it('takes a listed option by position or by flag', () => {
    expect(parseFast(WITH_JOB, ['7', '--store', 'q.db'], ['job'])).toEqual({ job: 7, store: 'q.db' });
    expect(parseFast(WITH_JOB, ['--job', '7', '--store', 'q.db'], ['job'])).toEqual({ job: 7, store: 'q.db' });
  });

  it.each([
    [['7', '8', '--store', 'q'], /Unknown argument: 8/],
    [['7', '--job', '8', '--store', 'q'], /job given twice/],
    [['--store', 'q'], /Missing required argument: job/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseFast(WITH_JOB, argv, ['job'])).toThrow(message);
  });
});

describe('the command table', () => {
  it('names each command once', () => {
    const names = COMMANDS.map((command) => command.name);
    expect(names).toEqual([...new Set(names)]);
  });

  // What --help shows beside each option (test/cli/help.test.ts reads it from the built CLI's help, too).
  it.each(COMMANDS.map((command) => [command.name, command] as const))('%s describes every option', (_name, command) => {
    const undescribed = Object.entries(command.options as Record<string, { describe?: string }>)
      .filter(([, spec]) => !spec.describe?.trim())
      .map(([option]) => option);
    expect(undescribed).toEqual([]);
  });
});
