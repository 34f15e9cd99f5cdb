import { describe, expect, it } from 'vitest';
import { SecondWave } from '../../../src/drill/runner/second-wave.js';

/** The deadline's moves, tick by tick, for a second wave of p3 and p4 (timeout 1000 ms). */
describe('SecondWave', () => {
  const wave = () => new SecondWave([{ name: 'p3' }, { name: 'p4' }], 1_000);

  it('moves the deadline on by the time any producer of the wave is still starting, and not once each is up', () => {
    const w = wave();
    expect(
      w.moveBy(50, 0, () => true),
      'not started yet: nothing',
    ).toBe(0);
    w.started(100);
    const silent = new Set(['p3', 'p4']);
    const starting = (name: string) => silent.has(name);
    expect(w.moveBy(150, 0, starting)).toBe(50);
    silent.delete('p3');
    expect(w.moveBy(400, 0, starting), 'p4 still silent').toBe(250);
    silent.delete('p4');
    expect(w.moveBy(450, 0, starting), 'the tick that sees both up still counts the time before it').toBe(50);
    expect(w.moveBy(900, 0, starting), 'both up: the queue is charged from here').toBe(0);
  });

  it("does not count twice a pause of the harness's already forgiven", () => {
    const w = wave();
    w.started(0);
    expect(w.moveBy(2_600, 2_500, () => true)).toBe(100);
  });

  it('forgives at most one timeout in all: a wave that never starts still ends the drill', () => {
    const w = wave();
    w.started(0);
    expect(w.moveBy(700, 0, () => true)).toBe(700);
    expect(w.moveBy(1_400, 0, () => true)).toBe(300);
    expect(w.moveBy(2_000, 0, () => true)).toBe(0);
  });
});
