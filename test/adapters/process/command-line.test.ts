import { describe, expect, it } from 'vitest';
import { assertRunnable, BadCommandError, splitCommand } from '../../../src/adapters/process/command-line.js';
import { joinWords } from '../../../src/cli/command.js';
import { queueImpl } from '../../../src/queues/registry.js';

describe('a process: command, split as a shell would without one', () => {
  it.each([
    ['python3 queue.py', ['python3', 'queue.py']],
    ['  python3   -u  queue.py  ', ['python3', '-u', 'queue.py']],
    [`python3 'my dir/queue.py' "--name=a \\"b\\""`, ['python3', 'my dir/queue.py', '--name=a "b"']],
    ['a\\ b c', ['a b', 'c']],
    [`x ''`, ['x', '']],
  ])('%s', (line, words) => {
    expect(splitCommand(line)).toEqual(words);
  });

  it('refuses an empty command and an unclosed quote', () => {
    expect(() => splitCommand('  ')).toThrow(BadCommandError);
    expect(() => splitCommand(`python3 'queue.py`)).toThrow(/unclosed '/);
  });

  it('round-trips words joined back by the command line (protocol-check CMD...)', () => {
    const words = ['python3', 'my dir/queue.py', "it's", '--x=1'];
    expect(splitCommand(joinWords(words))).toEqual(words);
  });

  it('is what --queue process:CMD names, one adapter per command', () => {
    const impl = queueImpl('process:python3 examples/python-queue/queue_drill_queue.py');
    expect(impl.name).toBe('process:python3 examples/python-queue/queue_drill_queue.py');
    expect(impl.locatorKind).toBe('file');
    expect(queueImpl('process:python3 examples/python-queue/queue_drill_queue.py')).toBe(impl);
    expect(() => queueImpl('process:')).toThrow(BadCommandError);
  });
});

describe('a program protocol-check is to run', () => {
  it('is found on the PATH or as an executable file, else refused as bad input naming it', () => {
    expect(() => assertRunnable('node')).not.toThrow();
    expect(() => assertRunnable(process.execPath)).not.toThrow();
    expect(() => assertRunnable('nonexistent-cmd')).toThrow(BadCommandError);
    expect(() => assertRunnable('nonexistent-cmd')).toThrow(/^no program nonexistent-cmd on the PATH/);
    expect(() => assertRunnable('./package.json')).toThrow(/^no program \.\/package\.json: not an executable file$/);
    // A directory on the PATH named like the program is no program.
    expect(() => assertRunnable('src', process.cwd())).toThrow(BadCommandError);
  });
});
