import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepFreedHeap } from '../../src/harness/heap-trim.js';
import { Supervisor } from '../../src/harness/supervisor.js';
import { isShippedQueue } from '../../src/queues/connects-only-here.js';
import { queueImpl } from '../../src/queues/registry.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The drill's own processes keep freed heap (glibc's trim threshold raised,
 * src/harness/heap-trim.ts); a user's queue process, and a person's own
 * GLIBC_TUNABLES, are left as they are. Real child processes, reading their
 * own environment.
 */

const PRINTS_ENV = join(import.meta.dirname, '../fixtures/prints-env.mjs');
const TUNABLES_ENV = 'GLIBC_TUNABLES';

let temp: ReturnType<typeof tempRunDir>;
let before: string | undefined;
beforeEach(() => {
  temp = tempRunDir('heap-trim');
  before = process.env[TUNABLES_ENV];
  delete process.env[TUNABLES_ENV];
});
afterEach(() => {
  if (before === undefined) delete process.env[TUNABLES_ENV];
  else process.env[TUNABLES_ENV] = before;
  temp.remove();
});

async function seenBy(supervisor: Supervisor, name: string): Promise<string> {
  const child = supervisor.spawn(name, [TUNABLES_ENV], { script: PRINTS_ENV });
  await child.exited;
  return readFileSync(child.logFile, 'utf8').trim();
}

describe("a drill child's malloc", () => {
  it('keeps freed heap with keepFreedHeap, and is left alone by default', async () => {
    expect(await seenBy(new Supervisor(temp.dir, {}, { keepFreedHeap: true }), 'kept')).toBe('glibc.malloc.trim_threshold=67108864');
    expect(await seenBy(new Supervisor(temp.dir), 'default')).toBe('(unset)');
  });

  it("leaves a person's own GLIBC_TUNABLES as they set it", async () => {
    process.env[TUNABLES_ENV] = 'glibc.malloc.arena_max=2';
    expect(keepFreedHeap()).toEqual({});
    expect(await seenBy(new Supervisor(temp.dir, {}, { keepFreedHeap: true }), 'theirs')).toBe('glibc.malloc.arena_max=2');
  });

  it("is tuned only for the queues the drill ships, never a user's process or adapter module", () => {
    expect(isShippedQueue(queueImpl('reference'))).toBe(true);
    expect(isShippedQueue(queueImpl('bullmq'))).toBe(true);
    expect(isShippedQueue(queueImpl('process:python3 my_queue.py'))).toBe(false);
  });
});
