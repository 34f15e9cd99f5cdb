import { describe, expect, it } from 'vitest';
import type { ChildHello } from '../../../src/adapters/process/hello.js';
import type { CheckContext } from '../../../src/contract/protocol/check-context.js';
import { type ProtocolStep, runSteps } from '../../../src/contract/protocol/protocol-check.js';
import { staleWriteStep } from '../../../src/contract/protocol/steps/stale-write.js';

/** Just enough of a check's context for runSteps: the hello heard, and the end of each step. */
function context(fencing: true | string): CheckContext {
  const hello = { protocol: 2, capabilities: { fencing } } as unknown as ChildHello;
  return { hello, endStep: async () => undefined } as unknown as CheckContext;
}

describe('a step that does not apply to what the hello says', () => {
  const ran: string[] = [];
  const first: ProtocolStep = { name: 'hello', describe: 'hello', run: async () => void ran.push('hello') };

  it('is skipped with the reason (a queue that says it does not fence is not held to refusing a stale write)', async () => {
    const results = await runSteps(context('Celery has no fencing'), [first, staleWriteStep], () => true);
    expect(results[1]).toMatchObject({
      name: 'stale-write-refused',
      status: 'skip',
      detail: 'the hello says the queue does not fence a stale holder: Celery has no fencing',
    });
  });

  it('runs when the hello says it applies', async () => {
    const step: ProtocolStep = { ...staleWriteStep, run: async () => void ran.push('stale') };
    const results = await runSteps(context(true), [first, step], () => true);
    expect(results.map((r) => r.status)).toEqual(['pass', 'pass']);
    expect(ran).toContain('stale');
  });
});
