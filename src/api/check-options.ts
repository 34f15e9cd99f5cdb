import { DEFAULT_PARALLEL, parallelOutOfRange } from '../kernel/defaults.js';
import { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';
import { ADAPTER_PREFIX, canonicalQueueName } from '../queues/adapter-module.js';
import { loadQueue, queueImpl } from '../queues/registry.js';
import { isTimeScale } from '../scenarios/time-scale.js';
import { OptionsError } from './options-error.js';

/*
 * The library's boundary: options come from a user's code (TypeScript's types
 * say what they should be, plain JavaScript may pass anything), so each is
 * checked here, once, with the same limits as the command line's flags and a
 * message naming the option as the caller wrote it.
 */

/** `value`, which must be an integer, or the default. */
export function integerOption(fn: string, name: string, value: number | undefined, fallback: number, min = Number.MIN_SAFE_INTEGER): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < min) {
    throw new OptionsError(`${fn}: ${name} must be ${min > Number.MIN_SAFE_INTEGER ? `a whole number from ${min}` : 'an integer'}, got ${chosen}`);
  }
  return chosen;
}

/** How many scenarios run at once: 1 to MAX_PARALLEL. */
export function parallelOption(fn: string, value: number | undefined): number {
  const chosen = integerOption(fn, 'parallel', value, DEFAULT_PARALLEL, 1);
  const problem = parallelOutOfRange(chosen);
  if (problem !== null) throw new OptionsError(`${fn}: parallel ${problem}`);
  return chosen;
}

/** How many scenarios a drill runs at once: 1 to MAX_PARALLEL, or 'auto' (more on a quiet machine: src/drill/drill-lanes.ts); 'auto' when not given. */
export function drillParallelOption(fn: string, value: number | 'auto' | undefined): number | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  return parallelOption(fn, value);
}

/** The time scale: 0.1 to 100. */
export function timeScaleOption(fn: string, value: number | undefined): number {
  const chosen = value ?? 1;
  if (!isTimeScale(chosen)) throw new OptionsError(`${fn}: timeScale must be from 0.1 to 100, got ${chosen}`);
  return chosen;
}

/** A drill's time scale: 0.1 to 100, or 'auto' (measured before the first scenario); 'auto' when not given. */
export function drillTimeScaleOption(fn: string, value: number | 'auto' | undefined): number | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  return timeScaleOption(fn, value);
}

/** How often an inconclusive scenario is run again: 0 to 5. */
export function retryInconclusiveOption(fn: string, value: number | undefined): number {
  const chosen = integerOption(fn, 'retryInconclusive', value, 0, 0);
  if (chosen > 5) throw new OptionsError(`${fn}: retryInconclusive must be from 0 to 5, got ${chosen}`);
  return chosen;
}

/** A list of names: an array of non-empty strings. */
export function namesOption(fn: string, name: string, value: readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === ''))
    throw new OptionsError(`${fn}: ${name} must be an array of names, got ${JSON.stringify(value)}`);
  return value.map((item) => item.trim());
}

/** A queue implementation's name, known to the registry (its UnknownQueueError lists them); an adapter module's is checked as it is loaded. */
export function queueOption(value: string | undefined): string | undefined {
  if (value !== undefined && !value.startsWith(ADAPTER_PREFIX)) queueImpl(value);
  return value;
}

/**
 * The queue `queue` or `adapter` (a module path: `adapter:PATH`) names, not
 * both, loaded (a module is imported here), as the drill's processes are given it.
 */
export async function loadedQueueOption(fn: string, queue: string | undefined, adapter: string | undefined): Promise<string | undefined> {
  if (queue !== undefined && adapter !== undefined)
    throw new OptionsError(`${fn}: give queue or adapter, not both (adapter: PATH is queue: 'adapter:PATH')`);
  if (adapter !== undefined && (typeof adapter !== 'string' || adapter === ''))
    throw new OptionsError(`${fn}: adapter must be the path of an ES module, got ${JSON.stringify(adapter)}`);
  const name = adapter !== undefined ? `${ADAPTER_PREFIX}${adapter}` : queueOption(queue);
  if (name === undefined) return undefined;
  await loadQueue(name);
  return canonicalQueueName(name);
}

/** Invariant ids, each one queue-drill knows. */
export function invariantsOption(fn: string, name: string, value: readonly string[] | undefined): InvariantId[] | undefined {
  if (value === undefined) return undefined;
  const unknown = namesOption(fn, name, value).filter((id) => !(INVARIANT_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) throw new OptionsError(`${fn}: ${name}: unknown invariant ${unknown.join(', ')}; allowed: ${INVARIANT_IDS.join(', ')}`);
  return [...value] as InvariantId[];
}
