import { InputError } from '../kernel/errors.js';

/*
 * A queue's own options, as its users set them: `--queue-option KEY=VALUE` on
 * the command line and `queue_options:` in a scenario. An adapter runs its
 * queue with the library's documented defaults and changes one only where an
 * option says so; it declares every option it accepts (QueueAdapter.options),
 * so a typo or a value it does not know is bad input naming the key, never a
 * setting silently ignored. The resolved values (defaults filled in) reach
 * provisioning, the adapter's fit, and every drill process (through the
 * environment, as the server URLs do), and every report view shows them.
 */

/** One option's value. */
export type QueueOptionValue = string | number | boolean;

/** Every option of a queue, by key, with its value (the default where none was given). */
export type QueueOptionValues = Readonly<Record<string, QueueOptionValue>>;

/** One option a queue accepts: what it does, its default, and the values it may take. */
export interface QueueOptionSpec {
  /** One line: what it changes, in the queue's own words where it has them. */
  describe: string;
  /** The library's own default, unless the adapter has a reason to differ (then `describe` says it). */
  default: QueueOptionValue;
  /** A choice among words, a number, or true/false. */
  type: { oneOf: readonly string[] } | 'number' | 'boolean';
}

/** The options a queue accepts, by key. */
export type QueueOptionSpecs = Readonly<Record<string, QueueOptionSpec>>;

/** Where the drill's processes find the resolved options (JSON), beside the servers' URLs. */
export const QUEUE_OPTIONS_ENV = 'QD_QUEUE_OPTIONS';

/** Thrown for an option a queue does not accept, or a value it cannot take. */
export class QueueOptionError extends InputError {
  readonly code = 'QD_BAD_QUEUE_OPTION';
}

/** An option in a line: `job_key_mode (replace | preserve_run_at; default replace)`. */
export function queueOptionLine(key: string, spec: QueueOptionSpec): string {
  const values = spec.type === 'number' ? 'a number' : spec.type === 'boolean' ? 'true or false' : spec.type.oneOf.join(' | ');
  return `${key} (${values}; default ${String(spec.default)})`;
}

function parsed(queue: string, key: string, spec: QueueOptionSpec, raw: QueueOptionValue): QueueOptionValue {
  const text = String(raw).trim();
  const bad = () => new QueueOptionError(`queue option ${key}=${text} for ${queue}: expected ${queueOptionLine(key, spec)}`);
  if (spec.type === 'boolean') {
    if (text === 'true' || text === 'false') return text === 'true';
    throw bad();
  }
  if (spec.type === 'number') {
    const value = Number(text);
    if (text === '' || !Number.isFinite(value)) throw bad();
    return value;
  }
  if (!spec.type.oneOf.includes(text)) throw bad();
  return text;
}

/**
 * The options a queue runs with: each given one checked against what the
 * queue accepts, every other at its default. Bad input names the key and what
 * the queue accepts.
 */
export function resolveQueueOptions(
  queue: string,
  specs: QueueOptionSpecs | undefined,
  given: Readonly<Record<string, QueueOptionValue>>,
): QueueOptionValues {
  const accepted = specs ?? {};
  const values: Record<string, QueueOptionValue> = {};
  for (const [key, spec] of Object.entries(accepted)) values[key] = spec.default;
  for (const [key, raw] of Object.entries(given)) {
    const spec = accepted[key];
    if (!spec) {
      const known = Object.entries(accepted).map(([k, s]) => queueOptionLine(k, s));
      throw new QueueOptionError(
        `queue option ${key} is not one ${queue} accepts: ${known.length > 0 ? `it accepts ${known.join(', ')}` : 'it accepts none'}`,
      );
    }
    values[key] = parsed(queue, key, spec, raw);
  }
  return values;
}

/**
 * `--queue-option [QUEUE:]KEY=VALUE` flags (repeatable), by queue: a flag
 * naming its queue applies to it alone; one without applies to each queue
 * run that accepts the key, and is bad input when none does (a typo would
 * otherwise change nothing). `queues`: the queues run, with the options each accepts.
 */
export function queueOptionFlags(
  flags: readonly string[],
  queues: ReadonlyArray<{ name: string; options?: QueueOptionSpecs | undefined }>,
): Record<string, Record<string, string>> {
  const byQueue: Record<string, Record<string, string>> = {};
  for (const flag of flags) {
    const match = /^(?:([^:=]+):)?([^=:]+)=(.*)$/s.exec(flag);
    if (!match) throw new QueueOptionError(`--queue-option ${flag}: expected [QUEUE:]KEY=VALUE (e.g. graphile-worker:job_key_mode=replace)`);
    const [, queue, rawKey, value] = match as unknown as [string, string | undefined, string, string];
    const key = rawKey.trim();
    const named = queue?.trim();
    if (named !== undefined && !queues.some((q) => q.name === named))
      throw new QueueOptionError(`--queue-option ${flag}: ${named} is not a queue this command runs (${queues.map((q) => q.name).join(', ')})`);
    const targets = named !== undefined ? [named] : queues.filter((q) => q.options?.[key] !== undefined).map((q) => q.name);
    // A key no queue accepts goes to the first, whose check then names what it accepts.
    for (const target of targets.length > 0 ? targets : queues.slice(0, 1).map((q) => q.name)) {
      byQueue[target] = { ...byQueue[target], [key]: value };
    }
  }
  return byQueue;
}

/** The resolved options a drill process was started with (QUEUE_OPTIONS_ENV), or none. */
export function queueOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): QueueOptionValues {
  const raw = env[QUEUE_OPTIONS_ENV];
  if (raw === undefined || raw === '') return {};
  const value: unknown = JSON.parse(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new QueueOptionError(`${QUEUE_OPTIONS_ENV} is not a JSON object`);
  return value as QueueOptionValues;
}
