import { pointFaultAction } from '../faults/actions/index.js';
import { isHoldersPoint } from '../faults/points.js';
import type { DrillDemands } from '../port/adapter.js';
import type { QueueOptionValues } from '../port/queue-options.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';

/** What a scenario asks of its queue, in the port's words, for the adapter to map onto its own options or refuse. */
export function drillDemands(scenario: ResolvedScenario, queueOptions: QueueOptionValues = {}): DrillDemands {
  const { settings } = scenario;
  const steps = scenario.jobs.flatMap((job) => job.plan.steps);
  return {
    leaseMs: settings.lease_ms,
    skewMarginMs: settings.skew_margin_ms,
    pollMs: settings.poll_ms,
    callTimeoutMs: settings.call_timeout_ms,
    maxAttempts: scenario.jobs.map((job) => job.maxAttempts),
    retryDelay: { baseMs: settings.retry.base_ms, capMs: settings.retry.cap_ms, jitterMs: settings.retry.jitter_ms },
    coordinator: settings.coordinator,
    approval: settings.approve && steps.some((step) => step.requires_approval),
    tools: [...new Set(steps.map((step) => step.tool))].sort(),
    points: [...new Set(scenario.pointFaults.map((fault) => fault.point))].sort(),
    holderDies: scenario.pointFaults.some((fault) => isHoldersPoint(fault.point) && pointFaultAction(fault.action)?.stopsHolder === true),
    queueOptions,
    timeoutMs: settings.timeout_ms,
  };
}
