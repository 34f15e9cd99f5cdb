import { EXIT, type ExitCode, exitCodeFor } from '../kernel/errors.js';
import { redact } from '../kernel/redact.js';

/**
 * What each exit code means, across the commands that give it (`queue-drill --help` lists them). Keyed by every
 * ExitCode, so a code added to EXIT does not compile until it is explained here.
 */
export const EXIT_CODE_MEANINGS: Readonly<Record<ExitCode, string>> = {
  [EXIT.ok]: 'all held: every scenario passed, every compare cell as expected, every check passed',
  [EXIT.violated]:
    'something broke: an invariant, a job that ended unexpectedly, a fault that never fired, a regression against --baseline, ' +
    'a compare cell not as expected, a failed contract or protocol check, a violation explore or soak found, ' +
    'a self-test that missed a broken variant or flagged the reference',
  [EXIT.badInput]: 'bad input: a flag, a file, a plan, a queue or scenario that does not exist, a server that does not answer at the start',
  [EXIT.harnessFailed]:
    'the harness itself failed (a scenario ended as error, clean could not remove something) or was interrupted (Ctrl-C, SIGTERM)',
  [EXIT.inconclusive]: 'nothing broke, but the machine starved a scenario past judging (run, merge; run --retry-inconclusive N runs it again)',
};

/** The one place errors become exit codes and messages: runs `work`, and on failure says why on stderr and sets the exit code. */
export async function withExitCode(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    // Whatever failed, its message may quote a payload: redacted like every other text we write.
    const text = redact(error instanceof Error ? error.message : String(error));
    const code = typeof error === 'object' && error !== null && 'code' in error ? ` [${String(error.code)}]` : '';
    process.stderr.write(`queue-drill: ${text}${code}\n`);
    process.exitCode = exitCodeFor(error);
  }
}
