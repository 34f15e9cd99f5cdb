import { existsSync } from 'node:fs';
import { parseFitAnswer } from '../../../adapters/process/fit.js';
import { CHECK_SETTINGS } from '../check-context.js';
import { enqueued, expectThat, snapshotOf, wellFormed } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';
import type { Session } from '../session.js';

/*
 * What protocol 2 added, for queues that live anywhere (a file, a schema, a
 * key prefix): each provision makes a queue of its own, teardown removes it
 * (or keeps it when told), and fit says before a drill whether the queue can
 * run it. Skipped for a protocol 1 child.
 */

/** Two provisions make two queues: different locators, and a job in one is not in the other. */
export const provisionIsolatedStep: ProtocolStep = {
  name: 'provision-isolated',
  since: 2,
  describe: 'two provisions give two queues of their own: different locators (a file that exists, or a name), a job in one not in the other',
  async run(ctx) {
    const [first, second] = [await ctx.freshQueue(), await ctx.freshQueue()];
    expectThat(first !== second, 'provision', `two provisions for two runs gave one locator, ${JSON.stringify(first)}: drills would share a queue`);
    if (ctx.hello!.locatorKind === 'file') expectThat(existsSync(first), 'provision', `the locator ${first} is not a file that exists`);
    await enqueued(await ctx.open(first), 'key-only-in-the-first');
    const other = await snapshotOf(await ctx.open(second));
    expectThat(other.jobs.length === 0, 'provision', `a job enqueued in ${first} is in ${second} too`);
  },
};

/** teardown with keep leaves the queue as it was; without, removes it. */
export const teardownStep: ProtocolStep = {
  name: 'teardown',
  since: 2,
  describe: 'teardown with keep leaves the queue and its jobs; without keep it removes the queue (its file, or its name on the server)',
  async run(ctx) {
    const locator = await ctx.freshQueue();
    const writer = await ctx.open(locator);
    await enqueued(writer, 'key-torn-down');
    await writer.close();
    await ctx.start().ok('teardown', { store: locator, keep: true, servers: ctx.servers });
    const kept = await snapshotOf(await ctx.open(locator));
    expectThat(kept.jobs.length === 1, 'teardown', `teardown with keep: true left ${kept.jobs.length} jobs of the 1 enqueued`);
    await ctx.endStep();
    await ctx.start().ok('teardown', { store: locator, keep: false, servers: ctx.servers });
    expectThat(
      await gone(ctx.start(), locator, ctx.hello!.locatorKind, ctx.servers),
      'teardown',
      `the queue ${locator} is still there after teardown`,
    );
  },
};

/** Whether the queue at `locator` is gone: its file, or (a name) a child cannot open it or finds it empty. */
async function gone(session: Session, locator: string, kind: 'file' | 'name', servers: Record<string, string>): Promise<boolean> {
  if (kind === 'file') return !existsSync(locator);
  try {
    await session.channel.request('open', { store: locator, servers, ...CHECK_SETTINGS });
    return (await snapshotOf(session)).jobs.length === 0;
  } catch {
    return true;
  }
}

/** The demands of a drill well within the child's limits: a second's lease, three attempts. */
function demands(leaseMs: number, maxAttempts: number): Record<string, unknown> {
  return {
    lease_ms: leaseMs,
    skew_margin_ms: 100,
    poll_ms: 20,
    call_timeout_ms: 0,
    max_attempts: [maxAttempts],
    retry_delay: { base_ms: 100, cap_ms: 1_000, jitter_ms: 10 },
    coordinator: false,
    approval: false,
    tools: [],
    points: [],
    holder_dies: false,
    queue_options: {},
    timeout_ms: 30_000,
  };
}

/** fit runs a drill within the child's limits, and refuses one beyond them with a reason. */
export const fitStep: ProtocolStep = {
  name: 'fit',
  since: 2,
  describe: "fit accepts a drill within the hello's limits (with its mapping) and refuses one beyond them, with a reason",
  async run(ctx) {
    const { minLeaseMs, maxAttempts } = ctx.hello!.limits;
    const session = ctx.start();
    const fit = async (leaseMs: number, attempts: number) => {
      const answer = await session.ok('fit', { demands: demands(leaseMs, attempts), servers: ctx.servers });
      return wellFormed('fit', () => parseFitAnswer(answer));
    };
    const fine = await fit(Math.max(1_000, minLeaseMs), Math.min(3, maxAttempts));
    expectThat(fine.ok, 'fit', `a drill within the hello's limits was refused: ${fine.ok ? '' : fine.reason}`);
    if (minLeaseMs > 1) {
      const short = await fit(minLeaseMs - 1, 1);
      expectThat(!short.ok, 'fit', `a lease of ${minLeaseMs - 1} ms, below the hello's min_lease_ms of ${minLeaseMs}, was accepted`);
    }
  },
};
