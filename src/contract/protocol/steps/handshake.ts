import { existsSync } from 'node:fs';
import { parseHello } from '../../../adapters/process/hello.js';
import { PROTOCOL_VERSION } from '../../../adapters/process/protocol.js';
import { expectThat, wellFormed } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';

/** The child says who it is, in protocol 1 or 2, with every op its protocol requires. */
export const helloStep: ProtocolStep = {
  name: 'hello',
  describe: 'hello names the child, its protocol (1 or 2), its capabilities (each evidence kind true or a reason) and its ops',
  async run(ctx) {
    const body = await ctx.start().ok('hello', { protocol: PROTOCOL_VERSION });
    ctx.hello = wellFormed('hello', () => parseHello(body));
  },
};

/** provision makes a queue file; open connects a child to it; a second open is refused. */
export const provisionOpenStep: ProtocolStep = {
  name: 'provision-open',
  describe: 'provision makes a queue (a file that exists, or a name on a server) and open connects to it; requests before open fail with a code',
  async run(ctx) {
    const early = await ctx.start().failure('snapshot', {}, 'fail: open was never sent');
    expectThat(early.definite, 'snapshot', `a request before open was answered ${early.message} as info, not fail`);
    const locator = await ctx.freshQueue();
    if (ctx.hello!.locatorKind === 'file') expectThat(existsSync(locator), 'provision', `the locator ${locator} is not a file that exists`);
    await ctx.open(locator);
  },
};
