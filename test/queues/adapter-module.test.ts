import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterModuleError, adapterProblems, canonicalQueueName } from '../../src/queues/adapter-module.js';
import { AdapterNotLoadedError, loadQueue, queueImpl } from '../../src/queues/registry.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A user's own adapter module (`adapter:PATH`, `--adapter PATH`): imported
 * once by each entry point, checked for the shape of a QueueAdapter, then
 * found by queueImpl under its absolute path like any built-in queue.
 */

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

function moduleFile(name: string, text: string): string {
  const run = tempRunDir('adapter-module');
  cleanup.push(run.remove);
  const file = join(run.dir, name);
  writeFileSync(file, text);
  return file;
}

const CAPABILITIES =
  "{ evidence: { history: true }, fencing: true, sagaStore: 'beside-the-run', takeover: 'coordinator', compensation: 'no', clock: 'caller' }";

describe('an adapter module', () => {
  it('is loaded once, named by its absolute path, and then found by queueImpl', async () => {
    const file = moduleFile(
      'mine.mjs',
      `export default { name: 'mine', description: 'a queue of mine', version: '2.0.0', soundness: 'sound', locatorKind: 'file',
        capabilities: ${CAPABILITIES}, provision: async () => ({}), connect: async () => ({}) };\n`,
    );
    const asGiven = `adapter:${relative(process.cwd(), file)}`;
    expect(() => queueImpl(asGiven)).toThrow(AdapterNotLoadedError);
    const loaded = await loadQueue(asGiven);
    expect(loaded.name).toBe(`adapter:${file}`);
    expect(canonicalQueueName(asGiven)).toBe(`adapter:${file}`);
    expect(loaded.description).toBe('mine: a queue of mine');
    expect(loaded.version).toBe('2.0.0');
    expect(queueImpl(asGiven)).toBe(loaded);
    expect(await loadQueue(`adapter:${file}`)).toBe(loaded);
  });

  it("keeps a class's methods bound to it", async () => {
    const file = moduleFile(
      'class.mjs',
      `class Mine {
        name = 'mine'; description = 'a class'; version = '1'; soundness = 'observed'; locatorKind = 'name';
        capabilities = ${CAPABILITIES};
        #where = 'here';
        async provision() { return { locator: this.#where }; }
        async connect() { return {}; }
      }
      export default new Mine();\n`,
    );
    const loaded = await loadQueue(`adapter:${file}`);
    expect(await loaded.provision({ runDir: '/tmp', runId: 'r', servers: {} })).toEqual({ locator: 'here' });
  });

  it('is refused, naming what is wrong: no such file, a module that does not import, an export that is not an adapter', async () => {
    await expect(loadQueue('adapter:/nowhere/mine.mjs')).rejects.toThrow(/adapter:\/nowhere\/mine\.mjs: no such file/);
    const broken = moduleFile('broken.mjs', 'export default {;\n');
    await expect(loadQueue(`adapter:${broken}`)).rejects.toThrow(AdapterModuleError);
    const notOne = moduleFile('not-one.mjs', "export default { name: 'x', provision: 3 };\n");
    await expect(loadQueue(`adapter:${notOne}`)).rejects.toThrow(
      /is not a queue adapter: description must be a non-empty string; version must be a non-empty string; provision must be a function; connect must be a function; soundness must be one of sound, broken, observed/,
    );
    const none = moduleFile('none.mjs', 'export const adapter = {};\n');
    await expect(loadQueue(`adapter:${none}`)).rejects.toThrow(/its default export is undefined, not an object/);
  });

  it('names each missing part of the shape', () => {
    expect(adapterProblems(null)).toEqual(['its default export is null, not an object']);
    expect(
      adapterProblems({ name: 'a', description: 'b', version: 'c', soundness: 'sound', locatorKind: 'file', provision() {}, connect() {} }),
    ).toEqual(['capabilities must be an object (what evidence it gives, its fencing, its takeover)']);
    expect(
      adapterProblems({
        name: 'a',
        description: 'b',
        version: 'c',
        soundness: 'sound',
        locatorKind: 'disk',
        capabilities: {},
        provision() {},
        connect() {},
      }),
    ).toEqual(['locatorKind must be one of file, name', 'capabilities.evidence must be an object']);
  });
});
