import { describe, expect, it } from 'vitest';
import { LEASE_MS, renewWhileRunning } from '../../../src/adapters/leftovers/lease.js';
import { leaseLiveIn } from '../../../src/adapters/pg/owner-comment.js';
import { waitFor } from '../../../src/harness/wait-for.js';

/* The lease a drill renews while it runs: renewals one at a time, failures let go, a stop that waits for the one under way. */

describe('renewWhileRunning', () => {
  it('renews again and again, one at a time, past a failed renewal, until stopped', async () => {
    let calls = 0;
    let inFlight = 0;
    let overlapped = false;
    const renewal = renewWhileRunning(async () => {
      calls++;
      inFlight++;
      overlapped ||= inFlight > 1;
      await new Promise((settle) => setTimeout(settle, 15));
      inFlight--;
      // Every other renewal fails, as one does while the server restarts.
      if (calls % 2 === 1) throw new Error('server restarting');
    }, 5);
    await waitFor(() => calls >= 4, { timeoutMs: 5_000, what: 'four renewals' });
    await renewal.stop();
    expect(inFlight, 'stop waited for the renewal under way').toBe(0);
    expect(overlapped).toBe(false);
  });
});

describe('a lease in a PostgreSQL comment', () => {
  it.each([
    ['renewed just now', JSON.stringify({ renewedAtMs: 1_000_000 }), 1_000_000, true],
    ['renewed a lease ago to the ms', JSON.stringify({ renewedAtMs: 1_000_000 }), 1_000_000 + LEASE_MS, true],
    ['renewed longer ago than a lease', JSON.stringify({ renewedAtMs: 1_000_000 }), 1_000_001 + LEASE_MS, false],
    ['never renewed', JSON.stringify({ tool: 'queue-drill' }), 1_000_000, null],
    ['not JSON', 'the billing queue', 1_000_000, null],
    ['no comment', null, 1_000_000, null],
  ])('%s', (_what, comment, nowMs, live) => {
    expect(leaseLiveIn(comment, nowMs)).toBe(live);
  });
});
