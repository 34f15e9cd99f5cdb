import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { MAINTENANCE_INTERVAL_SECONDS, MIN_EXPIRE_SECONDS, settingsFor } from './mapping.js';

/**
 * Whether pg-boss 10 can run a drill as asked, and the options it runs it
 * with. Refused: a lease below pg-boss's 1 s minimum (it would run with a
 * longer lease than the drill judges by), and a drill that arms the heartbeat
 * point (pg-boss 10 has no heartbeat, so the point could never fire and the
 * scenario would prove nothing).
 */
export function fitPgBoss(demands: DrillDemands): DrillFit {
  if (demands.leaseMs < MIN_EXPIRE_SECONDS * 1000) {
    const scale = Math.ceil((MIN_EXPIRE_SECONDS * 1000) / demands.leaseMs);
    return {
      ok: false,
      reason:
        `lease ${demands.leaseMs} ms is below pg-boss 10's minimum expireInSeconds of ${MIN_EXPIRE_SECONDS} s ` +
        `(run it in the same shape with --time-scale ${scale})`,
    };
  }
  if (demands.points.includes('heartbeat')) {
    return {
      ok: false,
      reason: 'pg-boss 10 has no heartbeat (a lease is never renewed), so the heartbeat fault point can never fire',
    };
  }
  const settings = settingsFor(demands.leaseMs, demands.retryDelay, demands.pollMs, demands.callTimeoutMs);
  const attempts = [...new Set(demands.maxAttempts)].sort((a, b) => a - b);
  return {
    ok: true,
    mapping: {
      expireInSeconds: settings.expireInSeconds,
      'expireInSeconds.rounding': `lease ${demands.leaseMs} ms and a call timeout of ${demands.callTimeoutMs ?? 0} ms, rounded up to whole seconds`,
      retryLimit: attempts.map((n) => `${n - 1} (max_attempts ${n})`).join(', ') || 'max_attempts - 1',
      retryDelay: settings.retryDelaySeconds,
      retryBackoff: false,
      'retryDelay.rounding': `retry base ${demands.retryDelay.baseMs} ms rounded up to whole seconds, at least 1; no cap, no jitter`,
      pollingIntervalSeconds: settings.pollingIntervalSeconds,
      supervise: 'every worker process runs a second, supervising pg-boss instance',
      maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS,
      policy: 'standard',
      jobId: 'uuid derived from the idempotency key (send returns null: deduplicated)',
    },
  };
}
