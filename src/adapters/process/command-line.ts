import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { InputError } from '../../kernel/errors.js';
import { redactCommandLine } from '../../kernel/redact-command-line.js';

/** A `process:` command that cannot be split into a program and its arguments. */
export class BadCommandError extends InputError {
  readonly code = 'QD_BAD_PROCESS_COMMAND';
}

/**
 * Splits a command line as a POSIX shell would for simple quoting, without a
 * shell: words split on blanks, 'single quotes' taken literally, "double
 * quotes" with \" and \\ escaped, a backslash outside quotes escaping the next
 * character. No expansion of any kind ($VAR, ~, globs): what is written is run.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word = (word ?? '') + c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word = (word ?? '') + line[++i];
      else word = (word ?? '') + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw new BadCommandError(`unclosed ${quote} in process command ${JSON.stringify(line)}`);
  if (word !== null) words.push(word);
  if (words.length === 0) throw new BadCommandError('the process command is empty: give one after process:, e.g. "process:python3 queue.py"');
  return words;
}

/** A child's command line as a message, a log or a report may show it: a `--token` value or a `password=` it holds redacted. */
export function shownCommand(command: string | readonly string[]): string {
  return redactCommandLine(typeof command === 'string' ? command : command.join(' '));
}

/**
 * Throws BadCommandError unless `program` can be run as a spawn would find it: a path (it holds a /) to an
 * executable file, or a name found executable on the PATH. Said at once, as bad input, instead of a check
 * whose every step fails because the child never started.
 */
export function assertRunnable(program: string, path = process.env.PATH ?? ''): void {
  const runnable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  const found = program.includes('/') ? runnable(program) : path.split(delimiter).some((dir) => dir !== '' && runnable(join(dir, program)));
  if (!found)
    throw new BadCommandError(
      program.includes('/')
        ? `no program ${program}: not an executable file`
        : `no program ${program} on the PATH: give the command that runs your queue's child, e.g. "python3 queue.py"`,
    );
}
