import { leaseFields } from '../../../adapters/process/protocol.js';
import { enqueued, expectThat, workOne } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';

const ENTRY = { step_id: 'write', action: 'execute', key: 'key-saga:write', status: 'started' };

/** The saga's log in the child's store: a checkpoint only while the writer holds the lease, read back in order; incidents kept. */
export const sagaLogStep: ProtocolStep = {
  name: 'saga-log',
  part: 'saga',
  describe: "append_tx writes a checkpoint only under the writer's live lease (else appended false); read_tx and incidents read them back",
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    const id = await enqueued(session, 'key-saga');
    const claim = await workOne(session, 'w-check');
    const ok = await session.ok('append_tx', { ...leaseFields(claim), entry: ENTRY });
    expectThat(ok.appended === true, 'append_tx', "the holder's checkpoint was not appended");
    const stale = await session.ok('append_tx', { ...leaseFields({ ...claim, epoch: claim.epoch - 1 }), entry: { ...ENTRY, status: 'success' } });
    expectThat(stale.appended === false, 'append_tx', 'a checkpoint under an older epoch was appended');
    const rows = (await session.ok('read_tx', { job_id: id })).rows;
    expectThat(Array.isArray(rows) && rows.length === 1, 'read_tx', `expected the one checkpoint back, got ${JSON.stringify(rows)}`);
    const row = (rows as Array<Record<string, unknown>>)[0]!;
    expectThat(
      row.job_id === id &&
        row.epoch === claim.epoch &&
        row.worker === 'w-check' &&
        row.idempotency_key === ENTRY.key &&
        row.attempt === claim.attempt,
      'read_tx',
      `the checkpoint came back as ${JSON.stringify(row)}`,
    );
    await session.ok('record_incident', { job_id: id, step_id: 'write', error: 'compensation failed for good' });
    const incidents = (await session.ok('incidents', {})).incidents;
    expectThat(Array.isArray(incidents) && incidents.length === 1, 'incidents', `expected one incident, got ${JSON.stringify(incidents)}`);
  },
};
