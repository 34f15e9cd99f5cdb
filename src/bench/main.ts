#!/usr/bin/env node
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { exitCodeFor } from '../kernel/errors.js';
import { toolVersion } from '../kernel/version.js';
import { runDrillTimes } from './drill/family.js';
import { runExploreFamily } from './explore/family.js';
import { describeMachine } from './machine.js';
import { parseBenchOptions, USAGE } from './options.js';
import { renderResults } from './print.js';
import { runRecovery } from './recovery/family.js';
import type { BenchResults } from './results.js';
import { checkServers } from './servers.js';
import { SIZE_PLANS } from './sizes.js';
import { comparisons } from './throughput/comparisons.js';
import { runThroughput } from './throughput/family.js';
import { writeResults } from './write-results.js';

/*
 * `npm run bench`: the benchmark suite. Each family measures the queues
 * beside a reference taken in the same run on the same machine (the ratio is
 * what counts): throughput of no-op jobs against worker processes and
 * backlog, beside the store's raw write rate and BullMQ; recovery latency
 * after a SIGKILL at each stage, beside the lease; the shipped drill's wall
 * time, and where it goes; explore's schedules a second on the reference,
 * and how long it takes to catch each broken variant. It prints a table per family and writes
 * OUT/<UTC>.json (validated against results.ts) with an SVG chart per family
 * beside it. A family whose server does not answer is skipped with a line.
 */

/** Prints a progress line (stderr: stdout is the tables). */
const progress = (line: string) => process.stderr.write(`${line}\n`);

async function main(argv: readonly string[]): Promise<number> {
  const options = parseBenchOptions(argv);
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const sized = SIZE_PLANS[options.size];
  const plan = { ...sized, throughput: { ...sized.throughput, cellBudgetMs: options.cellBudgetMs ?? sized.throughput.cellBudgetMs } };
  const started = new Date();
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  const work = mkdtempSync(join(os.tmpdir(), 'queue-drill-bench-'));
  try {
    const servers = await checkServers();
    const machine = await describeMachine(servers);
    const runId = `bench ${started.toISOString()} ${process.pid}`;
    const skippedServers = [servers.postgres && `PostgreSQL: ${servers.postgres}`, servers.redis && `Redis: ${servers.redis}`].filter(
      (s): s is string => !!s,
    );
    for (const line of skippedServers) progress(`skipping what needs it: ${line}`);
    const dir = (name: string) => {
      mkdirSync(join(work, name), { recursive: true });
      return join(work, name);
    };
    const has = (family: BenchResults['families'][number]) => options.families.includes(family) && !stop.signal.aborted;
    const throughput = has('throughput')
      ? await runThroughput(plan.throughput, {
          dir: dir('throughput'),
          servers,
          runId,
          signal: stop.signal,
          onCell: (c) =>
            progress(
              `throughput ${c.target} ${c.workers}w backlog ${c.backlog}: ${Math.round(c.jobsPerSecond)} jobs/s${c.error ? ` (${c.error})` : ''}`,
            ),
          onSkip: progress,
        })
      : null;
    const recovery = has('recovery')
      ? await runRecovery(plan.recovery, { dir: dir('recovery'), servers, signal: stop.signal, onLine: progress })
      : null;
    const drill = has('drill') ? await runDrillTimes(plan.drill, { dir: dir('drill'), signal: stop.signal, onLine: progress }) : null;
    const explore = has('explore') ? await runExploreFamily(plan.explore, { dir: dir('explore'), signal: stop.signal, onLine: progress }) : null;
    if (stop.signal.aborted) {
      progress('interrupted: nothing written');
      return 3;
    }
    const finished = new Date();
    const { results, files } = writeResults(options.out, {
      version: 1,
      tool: 'queue-drill bench',
      toolVersion: toolVersion(),
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      size: options.size,
      families: options.families,
      machine,
      skipped: [...skippedServers, ...(throughput?.skipped ?? []), ...(recovery?.skipped ?? []), ...(explore?.skipped ?? [])],
      throughput: throughput ? { cells: throughput.cells, comparisons: comparisons(throughput.cells), skipped: throughput.skipped } : null,
      recovery,
      drill,
      explore,
    });
    process.stdout.write(`${renderResults(results, files)}\n`);
    return 0;
  } finally {
    process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
    if (options.keep) progress(`work directory kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(exitCodeFor(error));
  },
);
