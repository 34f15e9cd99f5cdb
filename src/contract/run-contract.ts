import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectQueue, type QueueImpl } from '../adapters/registry.js';
import { seededRandom } from '../kernel/random.js';
import type { ServerSettings } from '../port/adapter.js';
import { type ContractCheck, type ContractContext, ContractViolation } from './check.js';
import { CONTRACT_CHECKS } from './checks/index.js';
import { race } from './race.js';

/** How one check came out against one queue. */
export interface ContractResult {
  check: string;
  statement: string;
  status: 'passed' | 'failed' | 'not_applicable';
  /** What broke (failed), or why the check does not apply. */
  detail: string | null;
  durationMs: number;
}

export interface ContractOptions {
  servers: ServerSettings;
  /** Only these checks (all when empty). */
  only?: readonly string[];
}

// Short leases, so a queue on its server's clock waits out little real time.
const LEASES = { caller: { leaseMs: 1_000, skewMarginMs: 50 }, server: { leaseMs: 300, skewMarginMs: 50 } } as const;

let runs = 0;

/** Runs one check on a fresh queue of its own, made and removed around it. */
async function runCheck(impl: QueueImpl, check: ContractCheck, options: ContractOptions): Promise<ContractResult> {
  const started = Date.now();
  const result = (status: ContractResult['status'], detail: string | null): ContractResult => ({
    check: check.id,
    statement: check.statement,
    status,
    detail,
    durationMs: Date.now() - started,
  });
  const dir = mkdtempSync(join(tmpdir(), `queue-drill-contract-${check.id}-`));
  const { leaseMs, skewMarginMs } = LEASES[impl.capabilities.clock];
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  try {
    const provisioned = await impl.provision({
      runDir: dir,
      runId: `contract ${impl.name} ${check.id} ${process.pid} ${++runs}`,
      servers: options.servers,
    });
    try {
      const connect = () =>
        connectQueue(impl, provisioned.locator, { clock, random: seededRandom(runs), leaseMs, skewMarginMs, servers: options.servers });
      const queue = await connect();
      try {
        if (check.needs.includes('manual') && !queue.manual) return result('not_applicable', `${impl.name} offers no manual claim and settle`);
        const ctx: ContractContext = {
          impl,
          leaseMs,
          skewMarginMs,
          queue,
          async passTime(ms) {
            if (impl.capabilities.clock === 'caller') offsetMs += ms;
            else await sleep(ms);
          },
          race: (threads, op, raceOptions) =>
            race(
              Array.from({ length: threads }, () => ({
                queue: impl.name,
                locator: provisioned.locator,
                servers: options.servers,
                offsetMs,
                leaseMs: raceOptions?.leaseMs ?? leaseMs,
                skewMarginMs,
                op,
              })),
              provisioned.env,
            ),
        };
        await check.run(ctx);
        return result('passed', null);
      } catch (error) {
        if (error instanceof ContractViolation) return result('failed', error.message);
        throw error;
      } finally {
        await queue.close();
      }
    } finally {
      await provisioned.teardown({ keep: false });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every check (or those named) against one queue implementation, one after another, each on a fresh queue. */
export async function runContract(impl: QueueImpl, options: ContractOptions): Promise<ContractResult[]> {
  const checks = CONTRACT_CHECKS.filter((c) => !options.only || options.only.length === 0 || options.only.includes(c.id));
  const results: ContractResult[] = [];
  for (const check of checks) results.push(await runCheck(impl, check, options));
  return results;
}

/** The results as lines a person reads. */
export function renderContract(queue: string, results: readonly ContractResult[]): string {
  const mark = { passed: 'PASS', failed: 'FAIL', not_applicable: 'N/A ' } as const;
  return [
    `adapter contract: ${queue}`,
    ...results.map(
      (r) =>
        `  ${mark[r.status]}  ${r.check.padEnd(26)} ${(r.durationMs / 1000).toFixed(1)}s  ${r.status === 'passed' ? r.statement : (r.detail ?? '')}`,
    ),
  ].join('\n');
}
