import { execFileSync } from 'node:child_process';

/*
 * The machine's python3, resolved once to the interpreter itself: a version
 * manager's shim (pyenv's is a bash script) costs a second or more per start
 * on a loaded machine, and a drill starts one child per process.
 */
export const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

/*
 * -S: no `site` (the example and its broken variants use the standard library
 * only); a Python whose site-packages hold .pth files starts three times faster
 * without it, which on a loaded machine is the difference between a drill whose
 * processes are up before the no-progress watchdog looks, and one whose are not.
 */

/** The Python example, as the protocol's command. */
export const PYTHON_EXAMPLE = `${PYTHON} -S examples/python-queue/queue_drill_queue.py`;

/** A broken variant kept under test/fixtures/protocol/, as a command. */
export const brokenFixture = (name: string): string => `${PYTHON} -S test/fixtures/protocol/${name}.py`;
