import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { readWorldState } from '../../../src/world/state.js';
import { meta, startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('GET /state', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('answers files as digests (never their content), branches and articles, as the file holds them', async () => {
    world = await startTestWorld();
    expect((await raw(world.server.url, 'GET', '/state')).body).toEqual({ files: [], branches: [], articles: [] });
    const { client } = world;
    await client.call('write_file', 'j:w1', { path: 'b.txt', content: 'secret-ish content' }, meta());
    await client.call('write_file', 'j:w2', { path: 'a.txt', content: 'new' }, meta());
    await client.call('restore_file_version', 'j:w2:undo', { compensates: 'j:w2' }, meta());
    await client.call('create_branch', 'j:branch', { name: 'feature/x' }, meta());
    await client.call('publish_article', 'j:pub', { slug: 'launch' }, meta());
    const answer = await raw(world.server.url, 'GET', '/state');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      files: [
        // Restored to before its first write: the row stays, with no content.
        { path: 'a.txt', exists: false, version: 2, contentSha256: null },
        { path: 'b.txt', exists: true, version: 1, contentSha256: sha256('secret-ish content') },
      ],
      branches: [{ name: 'feature/x', createdBy: 4 }],
      articles: [{ slug: 'launch', published: true, publications: 1 }],
    });
    expect(JSON.stringify(answer.body)).not.toContain('secret-ish content');
    expect(answer.body).toEqual(readWorldState(world.file));
    expect(await client.state()).toEqual(answer.body);
  });

  it('is read-only: other methods are refused with allow: GET', async () => {
    world = await startTestWorld();
    const wrong = await raw(world.server.url, 'PUT', '/state', '{}');
    expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'WORLD_METHOD_NOT_ALLOWED', 'GET']);
  });
});
