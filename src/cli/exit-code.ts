import { exitCodeFor } from '../kernel/errors.js';
import { redact } from '../kernel/redact.js';

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
