/*
 * The work a broken variant does between a read and the write that depends on
 * it. Against a database server that gap is a network round trip or two, a
 * few to tens of milliseconds on a busy network; against an in-process SQLite
 * file it is microseconds, a
 * race window so narrow that a drill of a few dozen jobs would catch a
 * check-then-act bug only by luck. The variants that have such a gap widen it
 * to what it can be in a real deployment (20 ms: producers or workers that
 * start a few milliseconds apart on two busy cores still meet in it), so the
 * drills catch them every time. The reference queue has no such gap to widen: its reads and writes
 * share one immediate transaction, or are one statement.
 */

/** How long the gap between a check and its act lasts in the variants that have one. */
export const WORK_WINDOW_MS = 20;
