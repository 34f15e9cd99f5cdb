import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../src/harness/supervisor.js';
import { connectsOnlyHere } from '../../src/queues/connects-only-here.js';
import { queueImpl } from '../../src/queues/registry.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * Node parses every certificate NODE_EXTRA_CA_CERTS names at each process
 * start (80 ms of CPU a process here): the drill's children that connect only
 * to this machine start without it; anything else keeps what the harness was
 * given. Real child processes, reading their own environment.
 */

const PRINTS_ENV = join(import.meta.dirname, '../fixtures/prints-env.mjs');
const CA_BUNDLE_ENV = 'NODE_EXTRA_CA_CERTS';

let temp: ReturnType<typeof tempRunDir>;
let before: string | undefined;
beforeEach(() => {
  temp = tempRunDir('ca-bundle');
  before = process.env[CA_BUNDLE_ENV];
  const bundle = join(temp.dir, 'extra.pem');
  writeFileSync(bundle, '');
  process.env[CA_BUNDLE_ENV] = bundle;
});
afterEach(() => {
  if (before === undefined) delete process.env[CA_BUNDLE_ENV];
  else process.env[CA_BUNDLE_ENV] = before;
  temp.remove();
});

/** What the child `name` of `supervisor` says NODE_EXTRA_CA_CERTS is. */
async function seenBy(supervisor: Supervisor, name: string): Promise<string> {
  const child = supervisor.spawn(name, [CA_BUNDLE_ENV], { script: PRINTS_ENV });
  await child.exited;
  return readFileSync(child.logFile, 'utf8').trim();
}

describe("a drill child's extra CA certificates", () => {
  it('are kept by default and left out with caBundle: false', async () => {
    expect(await seenBy(new Supervisor(temp.dir), 'kept')).toBe(process.env[CA_BUNDLE_ENV]);
    expect(await seenBy(new Supervisor(temp.dir, {}, { caBundle: false }), 'left-out')).toBe('(unset)');
  });

  it('are left out only for a shipped queue whose every server is on this machine', () => {
    const local = { pgUrl: 'postgres://postgres@127.0.0.1:5432/postgres', redisUrl: 'redis://localhost:6379' };
    expect(connectsOnlyHere(queueImpl('reference'), {})).toBe(true);
    expect(connectsOnlyHere(queueImpl('postgres'), local)).toBe(true);
    expect(connectsOnlyHere(queueImpl('postgres'), {})).toBe(true);
    expect(connectsOnlyHere(queueImpl('bullmq'), local)).toBe(true);
    expect(connectsOnlyHere(queueImpl('postgres'), { pgUrl: 'postgres://db.example.com/app?sslmode=require' })).toBe(false);
    expect(connectsOnlyHere(queueImpl('process:python3 my_queue.py'), {})).toBe(false);
  });
});
