import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../../src/adapters/process/child-channel.js';
import { requestTimeoutFor } from '../../../src/adapters/process/process-connection.js';

describe("a drill process's wait for its child's answer", () => {
  it.each([
    // The shipped lease (and shorter) keeps the default.
    [300, DEFAULT_REQUEST_TIMEOUT_MS],
    [400, 10_000],
    // --time-scale stretches the lease, and the wait follows it: 25 leases.
    [500, 12_500],
    [800, 20_000],
    [3_200, 80_000],
  ])('a lease of %s ms waits %s ms', (leaseMs, timeoutMs) => {
    expect(requestTimeoutFor(leaseMs)).toBe(timeoutMs);
  });
});
