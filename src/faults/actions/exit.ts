import type { PointFaultAction } from '../action.js';

const isExitCode = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 255;

/** exit: the process exits at the point with a code, as one that gives up mid-step would. */
export const exit: PointFaultAction<'exit', { type: 'exit'; code: number }> = {
  name: 'exit',
  summary: 'the process exits at the point (code 1 unless given)',
  fields: { code: { kind: 'exit-code', required: false, describe: 'the exit code [default: 1]' } },
  holds: false,
  stopsHolder: true,
  checkArg: (arg) =>
    arg?.code === undefined || isExitCode(arg.code) ? null : `exit arg.code must be an integer in [0, 255], got ${String(arg.code)}`,
  resolve: (arg) => ({ type: 'exit', code: (arg?.code as number | undefined) ?? 1 }),
  async fire(action, control) {
    control.answer({ action: 'exit', code: action.code });
  },
  isAnswer: (answer) => isExitCode(answer.code),
  async carryOut(answer) {
    // Nothing else is flushed or awaited: the child stops here, as a process that exits mid-step would.
    process.exit(answer.code as number);
  },
  timeline: () => [],
  explore: (fc) => fc.constant({}),
  exhaustive: [{ name: 'exit', fields: { code: 1 } }],
};
