import type { DrillReport } from './schema.js';

/**
 * What a report says of sharding, for every view: for a shard's run, which
 * share of the drill it ran; for a merged report, the shards it joined, one
 * line each. Null for a drill run whole.
 */
export function shardLines(report: Pick<DrillReport, 'shard' | 'merged' | 'scenarios'>): { head: string; shards: string[] } | null {
  if (report.shard) {
    const { index, count, order } = report.shard;
    return {
      head: `shard ${index}/${count}: ${report.scenarios.length} of the drill's ${order.length} scenario runs; join the shards with queue-drill merge DIR...`,
      shards: [],
    };
  }
  if (report.merged) {
    const count = report.merged.length;
    return {
      head: `merged from ${count} shard${count === 1 ? '' : 's'} (queue-drill merge)`,
      shards: report.merged.map(
        (shard) =>
          `shard ${shard.index}/${count}: ${shard.report} (exit code ${shard.exitCode}, ${(shard.durationMs / 1000).toFixed(1)} s, from ${shard.startedAt})`,
      ),
    };
  }
  return null;
}
