import { InputError } from '../kernel/errors.js';
import type { DrillReport } from './schema.js';
import { runKey, runsOfShare, type Shard, shareOf } from './shard.js';

/*
 * Whether shard reports are the shares of one drill, before merge joins them.
 * Joining reports that do not belong together would give a report of a drill
 * nobody ran (two seeds, two queues, a share counted twice or not at all) with
 * a verdict that means nothing, so anything that does not fit is refused, with
 * the files and what differs. Belonging together means: the same queue-drill,
 * scenarios file, queue and seed; the same shard count and the same
 * drill order (the same --only, --repeat and scenarios); the same command apart
 * from --shard and what only says where and how a runner ran (RUNNER_OPTIONS);
 * every share exactly once; and each report holding exactly its own share's
 * runs (no run in two reports, none missing from an interrupted shard).
 * The time scale may differ: a --time-scale given is in the command (so the
 * same in every share), and one chosen by auto is each runner's own, measured
 * on its machine (two CI runners, or one busier than the other, calibrate
 * apart); every scenario's report says the scale it ran at.
 */

/** Shard reports that cannot be merged: bad input (exit 2), naming the files and what does not fit. */
export class ShardMismatchError extends InputError {
  readonly code = 'QD_SHARDS_MISMATCH';
}

/** A shard's report as merge read it. */
export interface ShardReport {
  /** The report.json read. */
  file: string;
  report: DrillReport;
}

/** A shard's report, checked: with its share of the drill. */
export interface CheckedShard extends ShardReport {
  shard: NonNullable<DrillReport['shard']>;
}

/** Options that say only where or how a runner ran its share (its own server, directory, lanes, output): they may differ between shards. */
export const RUNNER_OPTIONS = ['--shard', '--out', '--parallel', '--pg-url', '--redis-url', '--amqp-url', '--nats-url', '--json', '--keep'] as const;
const FLAGS = new Set(['--json', '--keep', '--no-json', '--no-keep']);

/** The shard reports, sorted by share, when they are every share of one drill exactly once; else throws ShardMismatchError. */
export function checkShards(reports: readonly ShardReport[]): CheckedShard[] {
  if (reports.length === 0) throw new ShardMismatchError('merge needs the run directories (or report.json files) of the shards to join');
  const shards = reports.map(asShard);
  const first = shards[0]!;
  for (const other of shards.slice(1)) sameDrill(first, other);
  const byShare = new Map<number, CheckedShard>();
  for (const shard of shards) {
    const twin = byShare.get(shard.shard.index);
    if (twin) throw new ShardMismatchError(`shard ${share(shard.shard)} given twice: ${twin.file} and ${shard.file}`);
    byShare.set(shard.shard.index, shard);
  }
  const missing = Array.from({ length: first.shard.count }, (_, i) => i + 1).filter((index) => !byShare.has(index));
  if (missing.length > 0) throw missingShares(first, missing);
  noOverlap(shards);
  for (const shard of shards) ownShareOnly(shard);
  return [...byShare.values()].sort((a, b) => a.shard.index - b.shard.index);
}

function asShard(given: ShardReport): CheckedShard {
  if (!given.report.shard)
    throw new ShardMismatchError(
      `${given.file}: not a shard's report (it has no \`shard\`: its run had no --shard i/n); merge joins the reports of run --shard`,
    );
  // A half-run shard proves nothing about its share: its interrupted runs were not judged, its unstarted ones never ran.
  if (given.report.interruption)
    throw new ShardMismatchError(
      `${given.file}: shard ${share(given.report.shard)} was interrupted (by ${given.report.interruption.by}); run that shard again`,
    );
  return { ...given, shard: given.report.shard };
}

function share(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** Refuses `other` unless it is a share of the same drill as `first`. */
function sameDrill(first: CheckedShard, other: CheckedShard): void {
  const fields: Array<[string, unknown, unknown]> = [
    ['the queue-drill version', first.report.toolVersion, other.report.toolVersion],
    ['the scenarios file', first.report.file, other.report.file],
    ['the queue (--queue)', first.report.queue, other.report.queue],
    ['the seed (--seed)', first.report.seed, other.report.seed],
    ['the shard count (--shard i/N)', first.shard.count, other.shard.count],
  ];
  for (const [what, a, b] of fields) {
    if (a !== b) throw notOneDrill(first, other, `${what} differs: ${String(a)} in the first, ${String(b)} in the second`);
  }
  const a = first.shard.order;
  const b = other.shard.order;
  if (a.length !== b.length || a.some((run, i) => run !== b[i])) {
    const at = a.findIndex((run, i) => run !== b[i]);
    const where =
      at === -1
        ? `the first has ${a.length} runs, the second ${b.length}`
        : `run ${at + 1} is ${a[at]} in the first, ${b[at] ?? 'absent'} in the second`;
    throw notOneDrill(first, other, `the drills' scenario runs differ (--only, --repeat, or the scenarios file's contents): ${where}`);
  }
  const commandA = sharedCommand(first.report.command);
  const commandB = sharedCommand(other.report.command);
  if (commandA !== commandB) {
    throw notOneDrill(
      first,
      other,
      `the commands differ beyond ${RUNNER_OPTIONS.join(', ')}: \`${commandA}\` in the first, \`${commandB}\` in the second`,
    );
  }
}

function notOneDrill(first: CheckedShard, other: CheckedShard, why: string): ShardMismatchError {
  return new ShardMismatchError(`${first.file} and ${other.file} are not shares of one drill: ${why}`);
}

/** A shard's command line without how queue-drill was started and the runner's own options (RUNNER_OPTIONS), which may differ between shards of one drill. */
export function sharedCommand(command: string): string {
  const all = command.split(' ').filter(Boolean);
  // From the subcommand on: what started queue-drill (`npx queue-drill`, `queue-drill`, `node …/main.js`) is each machine's own.
  const run = all.indexOf('run');
  const words = run >= 0 ? all.slice(run) : all;
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const [name] = word.split('=', 1);
    if (FLAGS.has(word)) continue;
    if ((RUNNER_OPTIONS as readonly string[]).includes(name!)) {
      if (!word.includes('=')) i++; // its value is the next word
      continue;
    }
    kept.push(word);
  }
  return kept.join(' ');
}

/** The command that runs a missing share: the given shard's own, with its share changed. */
function commandFor(command: string, shard: Shard): string {
  return command.replace(/--shard(=|\s+)\d+\/\d+/, `--shard$1${share(shard)}`);
}

function missingShares(first: CheckedShard, missing: readonly number[]): ShardMismatchError {
  const lines = missing.map((index) => {
    const shard = { index, count: first.shard.count };
    const runs = runsOfShare(first.shard.order, shard);
    const listed = runs.slice(0, 5).join(', ') + (runs.length > 5 ? `, and ${runs.length - 5} more` : '');
    return `  shard ${share(shard)} (${runs.length} run${runs.length === 1 ? '' : 's'}: ${listed}): ${commandFor(first.report.command, shard)}`;
  });
  return new ShardMismatchError(
    `${missing.length} of the ${first.shard.count} shards ${missing.length === 1 ? 'is' : 'are'} missing; ` +
      `give every shard's run directory (these commands run the missing ones):\n${lines.join('\n')}`,
  );
}

/** Refuses a scenario run found in two shard reports. */
function noOverlap(shards: readonly CheckedShard[]): void {
  const holder = new Map<string, CheckedShard>();
  for (const shard of shards) {
    for (const scenario of shard.report.scenarios) {
      const run = runKey(scenario);
      const other = holder.get(run);
      if (other) {
        throw new ShardMismatchError(
          `the shards overlap: scenario run ${run} is in both ${other.file} (shard ${share(other.shard)}) and ${shard.file} (shard ${share(shard.shard)})`,
        );
      }
      holder.set(run, shard);
    }
  }
}

/** Refuses a shard holding a run of another share, or not every run of its own (an interrupted shard). */
function ownShareOnly(shard: CheckedShard): void {
  const { order } = shard.shard;
  const held = shard.report.scenarios.map(runKey);
  for (const run of held) {
    const position = order.indexOf(run);
    if (position === -1) throw new ShardMismatchError(`${shard.file}: scenario run ${run} is not in the drill's order (\`shard.order\`)`);
    const owner = shareOf(position, shard.shard.count);
    if (owner !== shard.shard.index)
      throw new ShardMismatchError(
        `${shard.file}: shard ${share(shard.shard)} holds scenario run ${run}, which is shard ${owner}/${shard.shard.count}'s (split another way?)`,
      );
  }
  const missing = runsOfShare(order, shard.shard).filter((run) => !held.includes(run));
  if (missing.length > 0) {
    throw new ShardMismatchError(
      `${shard.file}: shard ${share(shard.shard)} has ${held.length} of its ${held.length + missing.length} scenario runs ` +
        `(interrupted? its exit code was ${shard.report.exitCode}); missing: ${missing.join(', ')}; run that shard again`,
    );
  }
}
