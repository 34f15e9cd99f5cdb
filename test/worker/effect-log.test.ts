import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendEffect, loggedEffectsFor, readEffects } from '../../src/worker/effect-log.js';
import { tempRunDir } from '../helpers/run-dir.js';

const effect = (key: string, attempt = 1) => ({ key, jobId: '1', worker: 'w1', attempt, pid: 1, at: '2026-12-02T00:00:00.000Z' });

describe('the effect log of the demo actions', () => {
  let run: ReturnType<typeof tempRunDir>;
  let file: string;
  beforeEach(() => {
    run = tempRunDir('effect-log');
    file = join(run.dir, 'queue.db.effects.jsonl');
  });
  afterEach(() => run.remove());

  it('reads every whole line, in order; none for a missing file', () => {
    expect(readEffects(file)).toEqual([]);
    appendEffect(file, effect('a'));
    appendEffect(file, effect('b'));
    appendEffect(file, effect('a', 2));
    expect(readEffects(file).map((e) => `${e.key}${e.attempt}`)).toEqual(['a1', 'b1', 'a2']);
    expect(loggedEffectsFor(file, 'a')).toHaveLength(2);
  });

  it("ignores another process's append still being written (a last line without its newline), rather than failing to parse it", () => {
    appendEffect(file, effect('a'));
    const whole = JSON.stringify(effect('b'));
    appendFileSync(file, whole.slice(0, 20));
    expect(readEffects(file).map((e) => e.key)).toEqual(['a']);
    appendFileSync(file, `${whole.slice(20)}\n`);
    expect(readEffects(file).map((e) => e.key)).toEqual(['a', 'b']);
  });
});
