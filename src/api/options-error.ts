import { InputError } from '../kernel/errors.js';

/** An option given to the library (runDrill, loadScenarios, compare) that does not make sense; the message names the option. Exit code 2. */
export class OptionsError extends InputError {
  readonly code = 'QD_BAD_INPUT';
}
