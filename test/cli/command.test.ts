import { describe, expect, it } from 'vitest';
import { parseFast } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';

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
