import type { StepResult } from './protocol-check.js';

/** The check's results for a person: one line a step (PASS, FAIL naming the message and why, SKIP and why), then a count. */
export function renderProtocolCheck(command: string, results: readonly StepResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = results.map((r) => {
    const label = r.status.toUpperCase().padEnd(4);
    const name = r.name.padEnd(width);
    if (r.status === 'fail') return `${label}  ${name}  ${r.about}: ${r.detail}`;
    return `${label}  ${name}  ${r.detail}${r.status === 'pass' ? ` (${r.ms} ms)` : ''}`;
  });
  const count = (status: StepResult['status']) => results.filter((r) => r.status === status).length;
  return [`protocol-check ${command}`, ...lines, '', `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`].join('\n');
}
