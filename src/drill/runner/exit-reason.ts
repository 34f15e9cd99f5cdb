import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { redact } from '../../kernel/redact.js';

/*
 * A drill process that exits with an error says why on its stderr (the CLI's
 * one line: "queue-drill: <what failed> [code]"). The timeline's exit event
 * carries that line, so a drill that ends wrong because a process died names
 * the death: a queue in a child process that exited on enqueue is told as
 * such, not only as the jobs it lost.
 */

/** How much of the end of a stderr file is read for its last line. */
const TAIL_BYTES = 4096;
/** How long the reason may be on the timeline. */
const MAX_REASON = 300;

/** The line Node.js ends an uncaught error's report with: its version, which says nothing of why. */
const NODE_TRAILER = /^Node\.js v\d/;
/** A line that names an error: the CLI's own (`queue-drill: …`) or a thrown one (`Error: …`, `TypeError [CODE]: …`). */
const ERROR_LINE = /^(?:queue-drill:|(?:[A-Z]\w*)?Error\b)/;

/** The last line of `file` that names an error, else its last line but Node's version trailer (redacted, shortened); null when none. */
export function lastErrorLine(file: string): string | null {
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    if (size === 0) return null;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    fd = openSync(file, 'r');
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .map((text) => text.trim())
      .filter((text) => text !== '' && !NODE_TRAILER.test(text));
    // An uncaught error's stack ends with its code and Node's version: the line that names the error says why.
    const line = lines.findLast((text) => ERROR_LINE.test(text)) ?? lines.at(-1);
    if (!line) return null;
    const clean = redact(line);
    return clean.length > MAX_REASON ? `${clean.slice(0, MAX_REASON - 1)}…` : clean;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether an error line is Node failing to load a process's code (its entry or a module missing, a file cut short), before any of it ran. */
export function entryFailed(line: string): boolean {
  return /Cannot find module|ERR_MODULE_NOT_FOUND|^SyntaxError\b/.test(line);
}
