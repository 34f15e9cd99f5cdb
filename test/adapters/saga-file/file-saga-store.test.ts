import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FileSagaStore } from '../../../src/adapters/saga-file/file-saga-store.js';
import { ManualClock } from '../../../src/kernel/clock.js';
import { secretsInPayload } from '../../../src/kernel/redact.js';
import type { TxEntry, Writer } from '../../../src/port/checkpoint.js';
import { parsePlan } from '../../../src/saga/plan.js';
import { runPlan } from '../../../src/saga/run-plan.js';
import { tempRunDir } from '../../helpers/run-dir.js';
import { EMAIL_STEP, expectNothingOpen, planOf, type SagaFixture, startSaga, txLines, WRITE_STEP } from '../../saga/fixture.js';

/*
 * The saga's log beside the run (for queues that cannot share a transaction
 * with it): a SQLite file of the harness's own, fenced by the epoch. Two
 * FileSagaStore objects on one file stand for two processes.
 */

const stores: FileSagaStore[] = [];
const dirs: Array<{ remove(): void }> = [];
let fx: SagaFixture | undefined;
afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) dir.remove();
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

function sagaFile(): { open(): FileSagaStore } {
  const run = tempRunDir('saga-file');
  dirs.push(run);
  const file = join(run.dir, 'saga.db');
  const clock = new ManualClock();
  return {
    open() {
      const store = FileSagaStore.open(file, clock);
      stores.push(store);
      return store;
    },
  };
}

const ENTRY: TxEntry = { stepId: 'email', action: 'execute', key: 'k1:email', status: 'started' };
const holder = (holderId: string, epoch: number, attempt = epoch): Writer => ({ jobId: 'job-7', holder: holderId, epoch, attempt });

describe('FileSagaStore', () => {
  it('keeps a holder’s checkpoints with its epoch, attempt and id, readable by every process', async () => {
    const file = sagaFile();
    const w1 = await file.open().logFor(holder('w1', 1));
    expect(await w1.append(ENTRY)).toBe(true);
    expect(await w1.append({ ...ENTRY, status: 'success', externalReference: 'msg_000001' })).toBe(true);
    const reader = file.open();
    expect(await reader.rows('job-7')).toEqual([
      expect.objectContaining({ id: 1, job_id: 'job-7', step_id: 'email', action: 'execute', status: 'started', epoch: 1, attempt: 1, worker: 'w1' }),
      expect.objectContaining({ id: 2, status: 'success', external_reference: 'msg_000001', epoch: 1 }),
    ]);
    expect(await reader.rows('other-job')).toEqual([]);
  });

  it('refuses a stale holder once a later holder has shown its epoch, in whichever process', async () => {
    const file = sagaFile();
    const stale = await file.open().logFor(holder('w1', 1));
    expect(await stale.append(ENTRY)).toBe(true);
    const next = await file.open().logFor(holder('w2', 2));
    expect(await stale.append({ ...ENTRY, status: 'success' })).toBe(false);
    expect(await next.append({ ...ENTRY, stepId: 'email', action: 'reconcile', status: 'not_executed' })).toBe(true);
    // A holder that comes back under its old epoch is fenced off as well.
    expect(await (await file.open().logFor(holder('w1', 1))).append(ENTRY)).toBe(false);
    expect(txLines(await file.open().rows('job-7'))).toEqual(['email execute started', 'email reconcile not_executed']);
  });

  it('fences per job: another job’s epochs do not matter', async () => {
    const file = sagaFile();
    const store = file.open();
    await store.logFor({ jobId: 'job-8', holder: 'w9', epoch: 5, attempt: 5 });
    expect(await (await store.logFor(holder('w1', 1))).append(ENTRY)).toBe(true);
  });

  it('records incidents for a person', async () => {
    const file = sagaFile();
    const log = await file.open().logFor(holder('coord-1', 3));
    await log.incident('publish', 'PermanentError: HTTP 403');
    expect(await file.open().incidents()).toEqual([
      expect.objectContaining({ job_id: 'job-7', step_id: 'publish', error: 'PermanentError: HTTP 403', status: 'manual_recovery_required' }),
    ]);
  });

  it('carries the saga runtime: a plan runs to done on it, and a stale holder cannot even checkpoint its first call', async () => {
    fx = await startSaga();
    const file = sagaFile();
    const plan = planOf(WRITE_STEP, EMAIL_STEP);
    const first = fx.start(plan);
    const payload = JSON.parse(first.job.payload_json) as Record<string, unknown>;
    const stale = await file.open().logFor(fx.claimOf(first));
    fx.expireLeases();
    const second = fx.claim('w2');
    const run = async (claimed: typeof first, log: Awaited<ReturnType<FileSagaStore['logFor']>>) =>
      runPlan({ claim: fx!.claimOf(claimed), txLog: log, plan: parsePlan(payload.plan), world: fx!.client, secrets: secretsInPayload(payload) });

    // The new holder shows its epoch; from then on the stale one cannot checkpoint, so it never calls the world.
    const current = await file.open().logFor(fx.claimOf(second));
    expect(await run(first, stale)).toEqual({ kind: 'lease_lost', step: 'write' });
    expect(await run(second, current)).toMatchObject({ kind: 'done' });
    const rows = await file.open().rows(String(first.job.id));
    expect(txLines(rows)).toEqual(['write execute started', 'write execute success', 'email execute started', 'email execute success']);
    expect(new Set(rows.map((row) => `${row.worker} epoch ${row.epoch}`))).toEqual(new Set(['w2 epoch 2']));
    expect(fx.effects().map((e) => [e.tool, e.worker, e.epoch])).toEqual([
      ['write_file', 'w2', 2],
      ['send_email', 'w2', 2],
    ]);
  });
});
