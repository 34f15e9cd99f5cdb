import type { QueueOptionSpec, QueueOptionSpecs } from '../../port/queue-options.js';
import { MalformedMessageError, record } from './protocol.js';

/*
 * The options a protocol 2 child's queue accepts (its hello's `options`), as
 * its users set them: `--queue-option KEY=VALUE` and a scenario's
 * `queue_options:` are checked against them as against a built-in adapter's,
 * and the resolved values (defaults filled in) reach the child in `provision`,
 * `open` and `fit` as `queue_options`. On the wire an option is
 * `{"describe": "…", "default": V, "type": "number" | "boolean" | {"one_of": […]}}`.
 */

/** A hello's `options`, checked; none when absent. Throws MalformedMessageError naming the option that is wrong. */
export function parseChildOptions(given: unknown): QueueOptionSpecs {
  if (given === undefined) return {};
  const options = record(given, 'hello.options');
  const specs: Record<string, QueueOptionSpec> = {};
  for (const [key, raw] of Object.entries(options)) specs[key] = parseOption(key, raw);
  return specs;
}

function parseOption(key: string, raw: unknown): QueueOptionSpec {
  const where = `hello.options.${key}`;
  const spec = record(raw, where);
  if (typeof spec.describe !== 'string' || spec.describe === '') throw new MalformedMessageError(`${where}.describe must be text`);
  const type = wireType(spec.type, where);
  const value = spec.default;
  const fits =
    type === 'number'
      ? typeof value === 'number' && Number.isFinite(value)
      : type === 'boolean'
        ? typeof value === 'boolean'
        : typeof value === 'string' && type.oneOf.includes(value);
  if (!fits) throw new MalformedMessageError(`${where}.default ${JSON.stringify(value)} is not one of the values its type allows`);
  return { describe: spec.describe, default: value as QueueOptionSpec['default'], type };
}

function wireType(type: unknown, where: string): QueueOptionSpec['type'] {
  if (type === 'number' || type === 'boolean') return type;
  if (typeof type === 'object' && type !== null && !Array.isArray(type)) {
    const oneOf = (type as Record<string, unknown>).one_of;
    if (Array.isArray(oneOf) && oneOf.length > 0 && oneOf.every((v) => typeof v === 'string')) return { oneOf: oneOf as string[] };
  }
  throw new MalformedMessageError(`${where}.type must be "number", "boolean" or {"one_of": [words]}, got ${JSON.stringify(type)}`);
}
