import type { OwnerState } from './owner-state.js';
import type { SweepResult, SweptLeftover } from './sweep.js';

/** Unmarked names listed by name, at most this many a server: the rest counted (--json has them all). */
const UNMARKED_SHOWN = 5;

/** What a person needs besides a leftover's name: its queue, size, why it was taken or left, and its drill's run directory. */
function detail(leftover: SweptLeftover): string {
  const parts = [leftover.queue ?? '', leftover.size ?? '', leftover.why, leftover.owner ? `run dir ${leftover.owner.runDir}` : ''];
  return parts.filter((part) => part !== '').join('; ');
}

function line(leftover: SweptLeftover): string {
  const error = leftover.error === undefined ? '' : `: ${leftover.error}`;
  const label = leftover.action === 'left' ? leftover.state : leftover.action === 'failed' ? 'NOT removed' : leftover.action;
  return `  ${label.padEnd(12)} ${leftover.kind} ${leftover.name} (${detail(leftover)})${error}`;
}

function count(leftovers: readonly SweptLeftover[], state: OwnerState): number {
  return leftovers.filter((l) => l.state === state && l.action === 'left').length;
}

/** The sweep as a person reads it: per server, what was removed and what was left and why; then one line of totals. */
export function renderSweep(result: SweepResult): string {
  const out: string[] = [];
  for (const server of result.servers) {
    const found = result.leftovers.filter((l) => l.server === server.where);
    out.push(
      `${server.server} ${server.where}${server.error ? `: not swept: ${server.error.message}` : found.length === 0 ? ': nothing of a drill' : ''}`,
    );
    for (const leftover of found.filter((l) => l.state !== 'unmarked')) out.push(line(leftover));
    const unmarked = found.filter((l) => l.state === 'unmarked').map((l) => l.name);
    if (unmarked.length > 0) {
      const shown = unmarked.slice(0, UNMARKED_SHOWN).join(', ');
      const more = unmarked.length > UNMARKED_SHOWN ? `, and ${unmarked.length - UNMARKED_SHOWN} more` : '';
      out.push(`  ${'unmarked'.padEnd(12)} ${unmarked.length}, left alone (no owner mark to judge by): ${shown}${more}`);
    }
  }
  const taken = result.leftovers.filter((l) => l.action === 'removed' || l.action === 'would remove').length;
  const failed = result.leftovers.filter((l) => l.action === 'failed').length;
  const scope = result.under === null ? '' : ` (drills under ${result.under} only)`;
  out.push(
    `clean${scope}: ${result.dryRun ? `would remove ${taken}` : `removed ${taken}`}${failed > 0 ? `, ${failed} failed` : ''}; ` +
      `left ${count(result.leftovers, 'running')} of drills still running, ${count(result.leftovers, 'kept')} kept, ` +
      `${count(result.leftovers, 'unmarked')} unmarked${result.dryRun ? ' (a dry run: nothing removed)' : ''}`,
  );
  return `${out.join('\n')}\n`;
}
