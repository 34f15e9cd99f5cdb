import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { printedCommand } from '../../src/kernel/printed-command.js';
import { renderHistory } from '../../src/observe/history.js';
import { type QueueStatus, renderStatus } from '../../src/observe/status.js';
import { approveCommandFor, historyCommandFor, ledgerBeside, type QueueAddress } from '../../src/port/queue-address.js';
import type { JobSnapshot } from '../../src/port/snapshot.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The commands status, history and the report print for a job name the
 * queue they showed it from: its store, its implementation where it is not
 * the default, and a server given without a password.
 */

const dirs: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});
const prefix = printedCommand([]);

const FILE: QueueAddress = { queue: 'reference', store: '/tmp/d/queue.db', storeKind: 'file' };

describe('the commands printed for a job', () => {
  it('approve: the store, the queue only where it is not the default', () => {
    expect(approveCommandFor(FILE, '7')).toBe(`${prefix} approve 7 --store /tmp/d/queue.db`);
    expect(approveCommandFor({ ...FILE, queue: 'sketch-literal' }, '7')).toBe(`${prefix} approve 7 --store /tmp/d/queue.db --queue sketch-literal`);
  });

  it('a server URL goes on the command line without a password only (one with a password comes from QD_PG_URL, as it did here)', () => {
    const pg: QueueAddress = { queue: 'postgres', store: 'qd_x', storeKind: 'name', servers: { pgUrl: 'postgres://postgres@db:5432/p' } };
    expect(approveCommandFor(pg, '1')).toBe(`${prefix} approve 1 --store qd_x --queue postgres --pg-url postgres://postgres@db:5432/p`);
    const secret = { ...pg, servers: { pgUrl: 'postgres://u:hunter2@db/p' } };
    expect(approveCommandFor(secret, '1')).toBe(`${prefix} approve 1 --store qd_x --queue postgres`);
  });

  it("history: with the ledger found beside a drill's store file", () => {
    const run = tempRunDir('next');
    dirs.push(run);
    const store = join(run.dir, 'queue.db');
    writeFileSync(store, '');
    const address: QueueAddress = { ...FILE, store };
    expect(ledgerBeside(address)).toBeNull();
    writeFileSync(join(run.dir, 'ledger.db'), '');
    expect(ledgerBeside(address)).toBe(join(run.dir, 'ledger.db'));
    expect(ledgerBeside({ queue: 'postgres', store: 'qd_x', storeKind: 'name' })).toBeNull();
    expect(historyCommandFor(address, '2', ledgerBeside(address))).toBe(
      `${prefix} history 2 --store ${store} --ledger ${join(run.dir, 'ledger.db')}`,
    );
  });
});

const JOB: JobSnapshot = {
  id: '1',
  key: 'k'.repeat(64),
  action: 'plan',
  payload: '{}',
  status: 'review',
  outcome: 'awaiting_approval',
  attempts: 1,
  maxAttempts: 3,
  holder: null,
  leaseUntil: null,
  epoch: 1,
  nextRunAt: null,
  lastError: null,
  reviewReason: 'approval required before step charge (charge_customer)',
  resultDigest: null,
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
};

describe('renderStatus and renderHistory', () => {
  it('status: each job in review with how to see it, and one waiting for approval with how to approve it', () => {
    const status: QueueStatus = {
      counts: { pending: 0, running: 0, retry: 0, done: 0, review: 2, compensating: 0 },
      jobs: 2,
      retryRate: 0,
      reviewRate: 1,
      completionMs: null,
      leaseTimeouts: 0,
      refusedWrites: 0,
      review: [
        { jobId: '1', reason: 'approval required before step charge (charge_customer)', lastError: null, awaitingApproval: true },
        { jobId: '2', reason: 'permanent: 401', lastError: null, awaitingApproval: false },
      ],
      incidents: 0,
    };
    const lines = renderStatus(status, FILE).split('\n');
    expect(lines.slice(-5)).toEqual([
      '  job 1: approval required before step charge (charge_customer)',
      `    approve: ${prefix} approve 1 --store /tmp/d/queue.db`,
      `    history: ${prefix} history 1 --store /tmp/d/queue.db`,
      '  job 2: permanent: 401',
      `    history: ${prefix} history 2 --store /tmp/d/queue.db`,
    ]);
    expect(renderStatus(status)).not.toContain(prefix);
  });

  it('history: the notes under the job line, before the timeline', () => {
    const text = renderHistory(
      { job: JOB, states: [], steps: [], effects: [], incidents: [] },
      { approve: 'A', leftOut: 'effects in the world: left out' },
    ).split('\n');
    expect(text).toEqual([
      expect.stringMatching(/^job 1 \(plan\) .*: review \(awaiting_approval\), attempt 1 of 3$/),
      '  review: approval required before step charge (charge_customer)',
      '  approve: A',
      '  effects in the world: left out',
    ]);
  });
});
