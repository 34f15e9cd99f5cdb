import type { ScenarioFile } from '../scenarios/schema.js';
import type { LoadedScenarios } from './load-scenarios.js';
import { OptionsError } from './options-error.js';

/** The validated file behind each LoadedScenarios that loadScenarios returned, keyed by that very object. */
const VALIDATED = new WeakMap<LoadedScenarios, ScenarioFile>();

/** Keeps the validated file behind what loadScenarios returns. */
export function rememberFile(loaded: LoadedScenarios, file: ScenarioFile): void {
  VALIDATED.set(loaded, file);
}

/** What a drill reads its scenarios from: a path, or scenarios already loaded (their selection and queue with them). */
export function scenariosSource(
  fn: string,
  scenarios: string | LoadedScenarios | undefined,
): { path: string; loaded?: ScenarioFile; names: readonly string[]; queue: string | undefined } {
  if (scenarios === undefined || typeof scenarios === 'string') return { path: scenarios ?? 'scenarios.yaml', names: [], queue: undefined };
  const file = typeof scenarios === 'object' && scenarios !== null ? VALIDATED.get(scenarios) : undefined;
  if (file === undefined) throw new OptionsError(`${fn}: scenarios must be a path or what loadScenarios returned`);
  // Every scenario of the file is no selection: the report's command then names none.
  const names = scenarios.names.length === file.scenarios.length ? [] : scenarios.names;
  return { path: scenarios.path, loaded: file, names, queue: scenarios.queue };
}
