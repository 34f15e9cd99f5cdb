import { describe, expect, it } from 'vitest';
import { ExclusiveGate } from '../../src/drill/exclusive-gate.js';

/** A task that records when it starts and ends, and ends when told to. */
function task(log: string[], name: string) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    run: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ExclusiveGate: a drill that restarts the server runs alone', () => {
  it('waits for the shared runs under way, and holds back the shared ones that come after it', async () => {
    const gate = new ExclusiveGate();
    const log: string[] = [];
    const [a, b, alone, c] = ['a', 'b', 'alone', 'c'].map((name) => task(log, name));
    const running = [gate.shared(a!.run), gate.shared(b!.run), gate.exclusive(alone!.run), gate.shared(c!.run)];
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    a!.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'end a']);
    b!.finish();
    await settle();
    expect(log.slice(-2)).toEqual(['end b', 'start alone']);
    alone!.finish();
    await settle();
    expect(log.slice(-2)).toEqual(['end alone', 'start c']);
    c!.finish();
    await Promise.all(running);
  });

  it('lets the next run in when a task throws', async () => {
    const gate = new ExclusiveGate();
    await expect(gate.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.shared(async () => 'ran')).resolves.toBe('ran');
  });
});
