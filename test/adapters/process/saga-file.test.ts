import { describe, expect, it } from 'vitest';
import { SAGA_FILE_ENV, sagaFileEnv, sagaFileOf, serversOnTheWire } from '../../../src/adapters/process/saga-file.js';
import { LOCAL_SERVERS } from '../../../src/port/servers.js';

describe("where a process: queue's saga checkpoints live", () => {
  it("is the file the environment names (a drill process's, or the provisioned one a harness connection is handed), else beside the locator", () => {
    expect(sagaFileOf('qd-celery-run-1', { [SAGA_FILE_ENV]: '/runs/a/queue.saga.db' })).toBe('/runs/a/queue.saga.db');
    // The harness, which reads the checkpoints to judge, is handed the provisioned environment: never a stray file in its cwd.
    expect(sagaFileOf('qd-celery-run-2', sagaFileEnv('/runs/b/queue.saga.db'))).toBe('/runs/b/queue.saga.db');
    expect(sagaFileOf('/runs/c/queue.db', {})).toBe('/runs/c/queue.db.saga.db');
  });
});

describe('the servers a protocol 2 child is told of', () => {
  it('are those given, else the local servers the built-in queues fall back to', () => {
    expect(serversOnTheWire({})).toEqual({ pg_url: LOCAL_SERVERS.pgUrl, redis_url: LOCAL_SERVERS.redisUrl });
    expect(serversOnTheWire({ redisUrl: 'redis://10.0.0.2:6380/3', pgUrl: '' })).toEqual({
      pg_url: LOCAL_SERVERS.pgUrl,
      redis_url: 'redis://10.0.0.2:6380/3',
    });
  });
});
