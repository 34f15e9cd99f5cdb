import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';

const FILE = loadScenarioFile(join(import.meta.dirname, '..', '..', 'scenarios.yaml'));

describe('--time-scale', () => {
  it("stretches every duration of a scenario, its faults' too, and leaves the harness's tick", () => {
    const only = ['zombie-complete', 'clock-skew-within-margin', 'rate-limited-email-retried'];
    const plain = resolveScenarios(FILE, { seed: 1, only });
    const tripled = resolveScenarios(FILE, { seed: 1, only, timeScale: 3 });
    for (const [a, b] of plain.map((s, i) => [s, tripled[i]!] as const)) {
      expect(b.settings.lease_ms).toBe(a.settings.lease_ms * 3);
      expect(b.settings.timeout_ms).toBe(a.settings.timeout_ms * 3);
      expect(b.settings.no_progress_ms).toBe(a.settings.no_progress_ms * 3);
      expect(b.settings.retry.base_ms).toBe(a.settings.retry.base_ms * 3);
      expect(b.settings.tick_ms).toBe(a.settings.tick_ms);
      b.pointFaults.forEach((fault, i) => {
        const before = a.pointFaults[i]!.arg as { ms?: number } | undefined;
        if (before?.ms !== undefined) expect((fault.arg as { ms: number }).ms).toBe(before.ms * 3);
      });
      b.workers.forEach((w, i) => {
        expect(w.clockSkewMs).toBe(a.workers[i]!.clockSkewMs * 3);
      });
    }
    const paused = tripled[0]!.pointFaults.find((f) => f.action === 'pause');
    expect(paused, 'zombie-complete pauses a worker').toBeDefined();
  });

  it("stretches a scenario further on a queue that cannot keep so short a lease (pg-boss's whole seconds), and says why", () => {
    const only = ['zombie-complete'];
    const [onPgBoss] = resolveScenarios(FILE, { seed: 1, only, queue: 'pg-boss' });
    const [asked] = resolveScenarios(FILE, { seed: 1, only, queue: 'pg-boss', timeScale: 3 });
    const [reference] = resolveScenarios(FILE, { seed: 1, only });
    expect(onPgBoss!.timeScale).toBe(2.5);
    expect(onPgBoss!.settings.lease_ms).toBe(1000);
    expect(onPgBoss!.stretchedForQueue).toMatch(/every duration ×2.5 \(lease 400 → 1000 ms\): pg-boss 10's expireInSeconds counts whole seconds/);
    // A scale asked for that is already enough is kept, with nothing to say; the reference keeps the scenario's own.
    expect([asked!.timeScale, asked!.stretchedForQueue]).toEqual([3, null]);
    expect([reference!.timeScale, reference!.stretchedForQueue]).toEqual([1, null]);
  });

  it('is the identity at 1', () => {
    expect(resolveScenarios(FILE, { seed: 1, timeScale: 1 })).toEqual(resolveScenarios(FILE, { seed: 1 }));
  });
});
