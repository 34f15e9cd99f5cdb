import { writeFileSync } from 'node:fs';
import { systemClock } from '../../kernel/clock.js';
import { awaitRelease, signalReady } from '../../kernel/start-barrier.js';
import type { ChildResult, ChildSpec, ThroughputTarget } from './child-spec.js';
import type { ChildWork } from './child-work.js';

/*
 * One worker process of the throughput family (compiled, run by the parent
 * from dist/): it connects to its target, says it is ready at the start
 * barrier, waits for the common instant, works until its target is drained
 * (or its raw transactions are made, or the parent's SIGTERM says the cell's
 * time is up), and writes what it did. Its only
 * argument is its ChildSpec as JSON. A failure ends it with exit code 1 and
 * the error on stderr, which the parent reports.
 */

/** Each target's child side, loaded on demand: a child pays only for the client it uses. */
const WORK: Record<ThroughputTarget, () => Promise<(spec: ChildSpec) => Promise<ChildWork>>> = {
  'sqlite-queue': async () => (await import('./work-reference-queue.js')).openReferenceQueueWork,
  'postgres-queue': async () => (await import('./work-reference-queue.js')).openReferenceQueueWork,
  'sqlite-raw': async () => (await import('./work-sqlite-raw.js')).openSqliteRawWork,
  'postgres-raw': async () => (await import('./work-postgres-raw.js')).openPostgresRawWork,
  pgboss: async () => (await import('./work-pgboss.js')).openPgbossWork,
  bullmq: async () => (await import('./work-bullmq.js')).openBullmqWork,
};

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as ChildSpec;
  // The parent's SIGTERM says the cell's time is up: finish the unit in hand and say what was done.
  const stop = new AbortController();
  process.on('SIGTERM', () => stop.abort());
  const work = await (await WORK[spec.target]())(spec);
  try {
    signalReady(spec.barrier, spec.name);
    const releasedAt = await awaitRelease(spec.barrier, { clock: systemClock(), timeoutMs: 300_000 });
    const done = await work.run(stop.signal);
    const result: ChildResult = { name: spec.name, units: done.units, releasedAt, lastAt: done.lastAt ?? releasedAt };
    writeFileSync(spec.resultFile, JSON.stringify(result));
  } finally {
    await work.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
