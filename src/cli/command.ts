import { parseArgs } from 'node:util';
import type { Argv } from 'yargs';
import { UsageError } from '../kernel/errors.js';

/*
 * A command is declared once, as data: its options feed both yargs (help,
 * strict checking, for people) and a fast parser on node:util (for the child
 * processes a drill starts again and again, where loading yargs would cost more
 * than the rest of the start-up). Both give the same checked values.
 */

export interface OptionSpec {
  type: 'string' | 'number' | 'boolean';
  describe?: string;
  default?: string | number | boolean;
  demandOption?: true;
  choices?: readonly string[];
  /** A string option given any number of times (`--queue-option a=1 --queue-option b=2`): every value, in order; none: []. */
  repeatable?: true;
}

export type OptionSpecs = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S['type'] extends 'number' ? number : S['type'] extends 'boolean' ? boolean : string;

/** The parsed arguments of a command, typed from its option specs. */
export type ArgsOf<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends { repeatable: true }
    ? string[]
    : O[K] extends { default: unknown } | { demandOption: true }
      ? ValueOf<O[K]>
      : ValueOf<O[K]> | undefined;
};

/** Every value of a repeatable option, whether the parser gave none, one or several. */
function allValues(raw: unknown): string[] {
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(String);
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  name: string;
  describe: string;
  /** Options, by name. Those listed in `positional` may also be given in that order without their flag. */
  options: O;
  positional?: ReadonlyArray<keyof O & string>;
  /** The last positional takes every word left, quoted back into one command line (`protocol-check CMD...`). */
  variadic?: boolean;
  /** Parsed without yargs when started as a child process (no --help asked). */
  fast?: boolean;
  run(args: ArgsOf<O>): Promise<void> | void;
}

/** Declares a command; `const` keeps the option specs literal so the argument types follow. */
export function defineCommand<const O extends OptionSpecs>(command: Command<O>): Command<O> {
  return command;
}

/** The command as yargs names it: `approve [job]` (`protocol-check [command..]` for a variadic one). */
export function yargsCommandName(command: Pick<Command, 'name' | 'positional' | 'variadic'>): string {
  const names = command.positional ?? [];
  return [command.name, ...names.map((name, i) => (command.variadic && i === names.length - 1 ? `[${name}..]` : `[${name}]`))].join(' ');
}

/** Words joined back into one command line that splits (as a shell would) into the same words. */
export function joinWords(words: readonly string[]): string {
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ');
}

/** Adds a command's options (and positionals) to a yargs builder. */
export function withOptions(y: Argv, options: OptionSpecs, positional: readonly string[] = []): Argv {
  let built = y;
  for (const name of positional) {
    const spec = options[name]!;
    built = built.positional(name, {
      type: spec.type,
      ...(spec.describe === undefined ? {} : { describe: spec.describe }),
      ...(spec.demandOption ? { demandOption: true } : {}),
      ...(spec.default === undefined ? {} : { default: spec.default }),
    });
  }
  for (const [name, spec] of Object.entries(options)) {
    if (positional.includes(name)) continue;
    built = built.option(name, {
      type: spec.type,
      ...(spec.describe === undefined ? {} : { describe: spec.describe }),
      ...(spec.default === undefined ? {} : { default: spec.default }),
      ...(spec.demandOption ? { demandOption: true } : {}),
      ...(spec.choices ? { choices: [...spec.choices] } : {}),
      // Not yargs' `array` (it would take the words after it as values too): each flag gives one value, gathered here.
      ...(spec.repeatable ? { coerce: allValues, default: [] } : {}),
    });
  }
  return built;
}

/** Parses a command's arguments with node:util, as strictly as yargs would. */
export function parseFast<O extends OptionSpecs>(
  options: O,
  argv: readonly string[],
  positional: readonly string[] = [],
  variadic = false,
): ArgsOf<O> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          { type: spec.type === 'boolean' ? 'boolean' : 'string', ...(spec.repeatable ? { multiple: true } : {}) },
        ]),
      ) as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>,
      strict: true,
      allowPositionals: positional.length > 0,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (variadic && parsed.positionals.length > positional.length) {
    const rest = parsed.positionals.splice(positional.length - 1);
    parsed.positionals.push(joinWords(rest));
  }
  if (parsed.positionals.length > positional.length) {
    throw new UsageError(`Unknown argument: ${parsed.positionals.slice(positional.length).join(' ')}`);
  }
  const given: Record<string, unknown> = { ...parsed.values };
  positional.forEach((name, index) => {
    const value = parsed.positionals[index];
    if (value === undefined) return;
    if (given[name] !== undefined) throw new UsageError(`${name} given twice: ${value} and --${name} ${String(given[name])}`);
    given[name] = value;
  });
  const args: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options)) {
    const raw = given[name];
    if (spec.repeatable) {
      args[name] = allValues(raw);
      continue;
    }
    if (raw === undefined) {
      if (spec.demandOption) throw new UsageError(`Missing required argument: ${name}`);
      args[name] = spec.default;
      continue;
    }
    if (spec.type === 'number') {
      const value = Number(raw);
      if (raw === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(raw)}`);
      args[name] = value;
    } else {
      if (spec.choices && !spec.choices.includes(String(raw))) {
        throw new UsageError(`--${name} must be one of ${spec.choices.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      args[name] = raw;
    }
  }
  return args as ArgsOf<O>;
}
