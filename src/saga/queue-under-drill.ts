import type { QueueAdapter } from '../port/adapter.js';
import type { SagaRules } from './rules.js';

/**
 * What a drill's processes are handed, resolved once (by the command line or
 * the library call, from the registry): a queue's adapter, and where it makes
 * the saga runtime's decisions differently (a broken variant's), its rules.
 * The roles know no registry and no queue by name.
 */
export interface QueueUnderDrill extends QueueAdapter {
  readonly sagaRules?: SagaRules;
}
