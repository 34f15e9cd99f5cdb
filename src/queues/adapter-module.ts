import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../kernel/errors.js';
import type { QueueAdapter } from '../port/adapter.js';

/*
 * A queue adapter from outside queue-drill: an ES module whose default export
 * is a QueueAdapter (`queue-drill/adapter` has its types), named
 * `adapter:PATH`. Every process of a drill imports it by its absolute path,
 * so the name a drill hands its processes is `adapter:` and that path.
 * Importing is asynchronous, so each entry point (a command, the library, a
 * drill process) loads it once, before anything looks the queue up.
 */

/** What `--queue` and a scenario's `queue:` start an adapter module's name with. */
export const ADAPTER_PREFIX = 'adapter:';

/** The name of the adapter module at `path` (relative to the working directory), as every process of a drill is given it. */
export function adapterName(path: string): string {
  return `${ADAPTER_PREFIX}${isAbsolute(path) ? path : resolve(path)}`;
}

/** A queue's name as every process of a drill is given it: an adapter module's path made absolute, any other name as it is. */
export function canonicalQueueName(name: string): string {
  return name.startsWith(ADAPTER_PREFIX) ? adapterName(name.slice(ADAPTER_PREFIX.length)) : name;
}

/** A module path that cannot be loaded as an adapter, or an export that is not one: bad input, named with what is wrong. */
export class AdapterModuleError extends InputError {
  readonly code = 'QD_BAD_ADAPTER_MODULE';
}

const REQUIRED_FUNCTIONS = ['provision', 'connect'] as const;
const REQUIRED_TEXT = ['name', 'description', 'version'] as const;
const SOUNDNESS = ['sound', 'broken', 'observed'];
const LOCATOR_KINDS = ['file', 'name'];

/** What is wrong with a module's default export as a QueueAdapter, one phrase each; empty when nothing is. */
export function adapterProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [`its default export is ${value === null ? 'null' : typeof value}, not an object`];
  const adapter = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of REQUIRED_TEXT) if (typeof adapter[key] !== 'string' || adapter[key] === '') problems.push(`${key} must be a non-empty string`);
  for (const key of REQUIRED_FUNCTIONS) if (typeof adapter[key] !== 'function') problems.push(`${key} must be a function`);
  if (!SOUNDNESS.includes(adapter.soundness as string)) problems.push(`soundness must be one of ${SOUNDNESS.join(', ')}`);
  if (!LOCATOR_KINDS.includes(adapter.locatorKind as string)) problems.push(`locatorKind must be one of ${LOCATOR_KINDS.join(', ')}`);
  const capabilities = adapter.capabilities as Record<string, unknown> | undefined;
  if (typeof capabilities !== 'object' || capabilities === null)
    problems.push('capabilities must be an object (what evidence it gives, its fencing, its takeover)');
  else if (typeof capabilities.evidence !== 'object' || capabilities.evidence === null) problems.push('capabilities.evidence must be an object');
  return problems;
}

/**
 * Imports the adapter module `name` names (`adapter:PATH`) and checks its
 * default export's shape; the adapter is named `name`, what every process of
 * the drill is told, and its description keeps the name it gave itself.
 */
export async function importAdapterModule(name: string): Promise<QueueAdapter> {
  const path = name.slice(ADAPTER_PREFIX.length);
  if (!existsSync(path))
    throw new AdapterModuleError(`${name}: no such file (an adapter module is an ES module whose default export is a QueueAdapter)`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    throw new AdapterModuleError(`${name}: cannot be imported: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const problems = adapterProblems(module.default);
  if (problems.length > 0) throw new AdapterModuleError(`${name} is not a queue adapter: ${problems.join('; ')}`);
  const adapter = module.default as QueueAdapter;
  return { ...bound(adapter), name, description: `${adapter.name}: ${adapter.description}` };
}

/** The adapter's own methods, bound to it, so one written as a class keeps its `this` once spread into another object. */
function bound(adapter: QueueAdapter): QueueAdapter {
  const copy: Record<string, unknown> = {};
  for (let proto: object | null = adapter; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === 'constructor' || key in copy) continue;
      const value = (adapter as unknown as Record<string, unknown>)[key];
      copy[key] = typeof value === 'function' ? value.bind(adapter) : value;
    }
  }
  return copy as unknown as QueueAdapter;
}
