import { PROTOCOL_VERSION } from '../../../adapters/process/protocol.js';
import { enqueued, expectThat, workOne } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';
import { StepFailure } from '../session.js';

/** An op the child does not know is answered fail with a code, and the child goes on answering. */
export const unknownOpStep: ProtocolStep = {
  name: 'unknown-op',
  describe: 'an unknown op is answered fail with a code (not a crash, not silence); a line that is not JSON does not stop the child',
  async run(ctx) {
    const session = ctx.start();
    const answer = await session.failure('no_such_op', {}, 'fail with a code');
    expectThat(answer.definite && answer.code !== '', 'no_such_op', `an unknown op was answered ${answer.message}; expected fail`);
    session.channel.writeLine('this line is not JSON');
    session.channel.writeLine('{"op": "hello"}');
    await session.ok('hello', { protocol: PROTOCOL_VERSION });
  },
};

/** A child exits on its own, soon, once its stdin closes: with nothing in hand, and with a delivery outstanding. */
export const exitOnCloseStep: ProtocolStep = {
  name: 'exit-on-stdin-close',
  describe: 'the child exits within 2 s of its stdin closing, even mid-delivery (no orphans when a drill process is killed)',
  async run(ctx) {
    const idle = ctx.start();
    await idle.ok('hello', { protocol: PROTOCOL_VERSION });
    if ((await idle.channel.close(2_000)).killed) throw new StepFailure('stdin', 'an idle child was still running 2 s after its stdin closed');
    const busy = await ctx.open(await ctx.freshQueue());
    await enqueued(busy, 'key-exit');
    await workOne(busy, 'w-check');
    if ((await busy.channel.close(2_000)).killed)
      throw new StepFailure('stdin', 'a child holding a delivery was still running 2 s after its stdin closed');
  },
};
