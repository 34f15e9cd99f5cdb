import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '../kernel/random.js';
import type { DrillDemands, RetryDelayPolicy, ServerSettings } from '../port/adapter.js';
import { connectQueue, retryPolicyOf } from '../port/connect-queue.js';
import type { QueueImpl } from '../queues/registry.js';
import { type ContractCheck, type ContractContext, ContractViolation } from './check.js';
import { CONTRACT_CHECKS } from './checks/index.js';
import { race } from './race.js';

/** How one check came out against one queue. */
export interface ContractResult {
  check: string;
  statement: string;
  status: 'passed' | 'failed' | 'not_judged';
  /** What broke (failed), or why the check could not judge this queue. */
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

// No wait between attempts where the queue allows it: the checks are about leases, not backoff.
const NO_RETRY_DELAY: RetryDelayPolicy = { baseMs: 0, capMs: 0, jitterMs: 0 };

// A queue whose shortest lease is longer gets the first of these it accepts: whole seconds, as queues that count
// leases in seconds keep them exactly (a lease rounded up would outlast the time a check waits for it).
const LONGER_LEASES_MS = [1_000, 2_000, 5_000];

/** What the contract's checks ask of a queue, in the words a drill's scenario asks them. */
/** The attempt budgets the checks give their jobs. */
const CONTRACT_BUDGETS = [2, 3];

function contractDemands(impl: QueueImpl, leaseMs: number, skewMarginMs: number): DrillDemands {
  return {
    leaseMs,
    skewMarginMs,
    pollMs: 50,
    maxAttempts: CONTRACT_BUDGETS,
    retryDelay: NO_RETRY_DELAY,
    // A check plays the coordinator's part where the queue leaves taking leases back to one (see queueUpkeep).
    coordinator: impl.capabilities.takeover === 'coordinator',
    approval: false,
    tools: [],
    points: [],
    // A check's holder stops renewing by hand (expire_lease); it never kills one.
    holderDies: false,
    queueOptions: {},
    timeoutMs: 60_000,
  };
}

/** The contract's lease for this queue: the clock's short one, else the first longer one the queue's `fit` accepts; or why none fits. */
export async function contractLease(
  impl: QueueImpl,
  servers: ServerSettings,
): Promise<{ ok: true; leaseMs: number; skewMarginMs: number } | { ok: false; reason: string }> {
  const { leaseMs: shortest, skewMarginMs } = LEASES[impl.capabilities.clock];
  let reason = '';
  for (const leaseMs of [shortest, ...LONGER_LEASES_MS.filter((ms) => ms > shortest)]) {
    const fit = impl.fit ? await impl.fit(contractDemands(impl, leaseMs, skewMarginMs), servers) : { ok: true as const };
    if (fit.ok) return { ok: true, leaseMs, skewMarginMs };
    reason = fit.reason;
  }
  return { ok: false, reason: `no lease up to ${LONGER_LEASES_MS.at(-1)} ms fits: ${reason}` };
}

let runs = 0;

/** Why the queue does not claim what the check judges (fencing, dedupe, expiry by time), or null when it does. */
function unclaimedNeed(check: ContractCheck, impl: QueueImpl): string | null {
  const { fencing, dedupe = true, leaseExpiry = true } = impl.capabilities;
  if (check.needs.includes('fencing') && fencing !== true) return fencing;
  if (check.needs.includes('dedupe') && dedupe !== true) return dedupe;
  if (check.needs.includes('lease-expiry') && leaseExpiry !== true) return leaseExpiry;
  return null;
}

/** Runs one check on a fresh queue of its own, made and removed around it. */
async function runCheck(
  impl: QueueImpl,
  check: ContractCheck,
  options: ContractOptions,
  lease: { leaseMs: number; skewMarginMs: number },
): Promise<ContractResult> {
  const started = Date.now();
  const result = (status: ContractResult['status'], detail: string | null): ContractResult => ({
    check: check.id,
    statement: check.statement,
    status,
    detail,
    durationMs: Date.now() - started,
  });
  const unclaimed = unclaimedNeed(check, impl);
  if (unclaimed !== null) return result('not_judged', unclaimed);
  const dir = mkdtempSync(join(tmpdir(), `queue-drill-contract-${check.id}-`));
  const { leaseMs, skewMarginMs } = lease;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  try {
    const provisioned = await impl.provision({
      runDir: dir,
      runId: `contract ${impl.name} ${check.id} ${process.pid} ${++runs}`,
      servers: options.servers,
      maxAttempts: CONTRACT_BUDGETS,
    });
    try {
      const queue = await connectQueue(impl, provisioned.locator, {
        clock,
        random: seededRandom(runs),
        leaseMs,
        skewMarginMs,
        retryDelay: NO_RETRY_DELAY,
        servers: options.servers,
        env: provisioned.env,
      });
      try {
        if (check.needs.includes('manual') && !queue.manual) return result('not_judged', `${impl.name} offers no manual claim and settle`);
        const ctx: ContractContext = {
          impl,
          leaseMs,
          skewMarginMs,
          retryDelayMs: retryPolicyOf(impl, NO_RETRY_DELAY).baseMs,
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
                retryDelay: NO_RETRY_DELAY,
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
  const lease = await contractLease(impl, options.servers);
  if (!lease.ok)
    return checks.map((check) => ({ check: check.id, statement: check.statement, status: 'not_judged', detail: lease.reason, durationMs: 0 }));
  const results: ContractResult[] = [];
  for (const check of checks) results.push(await runCheck(impl, check, options, lease));
  return results;
}

/** The results as lines a person reads. */
export function renderContract(queue: string, results: readonly ContractResult[]): string {
  const mark = { passed: 'PASS', failed: 'FAIL', not_judged: 'N/J ' } as const;
  return [
    `adapter contract: ${queue}`,
    ...results.map(
      (r) =>
        `  ${mark[r.status]}  ${r.check.padEnd(26)} ${(r.durationMs / 1000).toFixed(1)}s  ${r.status === 'passed' ? r.statement : (r.detail ?? '')}`,
    ),
  ].join('\n');
}
