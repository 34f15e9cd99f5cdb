/*
 * The lines of a job's life as a person reads them, one format for both
 * places that print one: the `history` command (src/observe/history.ts, from
 * the live queue) and the report (src/report/job-life.ts, from a drill's
 * events). Each gives the fields it has; what only one of them knows (an
 * effect's pid, the key a compensation undoes) goes in the effect's `tail`.
 */

/** A change of the job's state, or a write refused for a stale lease. */
export function stateLine(e: { from: string | null; to: string; refused: boolean; attempt: number; by: string; reason: string }): string {
  return `state   ${(e.from ?? '(new)').padEnd(12)} -> ${e.to.padEnd(12)} ${e.refused ? 'REFUSED ' : ''}#${e.attempt} ${e.by}: ${e.reason}`;
}

/** A checkpoint of a plan step. */
export function stepLine(s: {
  step: string;
  action: string;
  status: string;
  attempt: number;
  worker: string;
  ref: string | null;
  detail: string | null;
}): string {
  return (
    `step    ${s.step.padEnd(12)} ${s.action.padEnd(10)} ${s.status.padEnd(12)} #${s.attempt} ` +
    `${s.worker}${s.ref ? ` ref ${s.ref}` : ''}${s.detail ? `: ${s.detail}` : ''}`
  );
}

/** An effect the world applied; `tail` is what the printer adds after the worker (its pid, its epoch, what it undoes). */
export function effectLine(f: { step: string; tool: string; ref: string; attempt: number; worker: string }, tail: string): string {
  return `effect  ${f.step.padEnd(12)} ${f.tool.padEnd(20)} ref ${f.ref} #${f.attempt} ${f.worker}${tail}`;
}

/** An incident for a person (a compensation that failed for good). */
export function incidentLine(i: { step: string; status: string; error: string }): string {
  return `INCIDENT ${i.step}: ${i.status}: ${i.error}`;
}

/** A line at the harness's time, with the stamp as written where a measured clock moved it (correction: whose clock, by how much). */
export function placedLine(at: string, text: string, moved: { stamp: string; correction: string } | null): string {
  return `${at}  ${text}${moved ? `  [stamped ${moved.stamp} by ${moved.correction}]` : ''}`;
}
