import type { StepResult } from './protocol-check.js';
import type { CheckTimeScale } from './time-scale.js';

/** The check's first line: its time scale, what auto measured, and how long each answer is waited for. */
export function renderTimeScale({ scale, calibration, answerTimeoutMs }: CheckTimeScale): string {
  const how =
    calibration === null
      ? 'given'
      : `auto: a process starts in ${calibration.startupMs} ms here now, a timer fires ${calibration.timerLatenessMs} ms late`;
  return `time scale ×${scale} (${how}): each answer and delivery is waited for up to ${answerTimeoutMs} ms`;
}

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
