import type { ScenarioVerdict } from '../schema.js';

/** Each verdict as report.html writes it, in its badge (the badge's shape, set by the page's style, tells them apart in grey too). */
export const VERDICT_WORD: Record<ScenarioVerdict, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  vacuous: 'VACUOUS',
  inconclusive: 'INCONCLUSIVE',
  not_judged: 'NOT JUDGED',
  not_supported: 'NOT SUPPORTED',
  interrupted: 'INTERRUPTED',
  error: 'ERROR',
};
