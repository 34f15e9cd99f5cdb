import { request } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../src/harness/wait-for.js';
import { PermanentError, TransientError, UnknownOutcomeError } from '../../src/kernel/job-errors.js';
import { WorldClient } from '../../src/world/client.js';
import { readCalls, readLedger } from '../../src/world/ledger.js';
import { meta, startTestWorld, type TestWorld } from './world-fixture.js';

/** The rejection of a promise (fails the test if it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: string; status?: number | null }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string; status?: number | null };
  }
  throw new Error('expected the call to fail, and it succeeded');
}

/** A raw request, for bodies the client would never send. */
function raw(url: string, method: string, path: string, body?: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'), headers: res.headers }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const WRITE = { path: 'notes/a.txt', content: 'hello' };
const CHARGE = { customer: 'c_1024', amount: 199 };

describe('the world over HTTP', () => {
  let world: TestWorld;
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });
  const start = async (timeoutMs?: number) => {
    world = await startTestWorld(timeoutMs === undefined ? {} : { timeoutMs });
    cleanup.push(() => world.stop());
    return world;
  };

  describe('calls', () => {
    it('applies, replays by key, and reads back', async () => {
      const { client, file } = await start();
      const first = await client.call('write_file', 'job-1:write', WRITE, meta());
      expect(first).toEqual({ result: { version: 1, bytes: 5, contentSha256: expect.any(String) }, externalRef: 'fv_000001', replayed: false });
      expect(await client.call('write_file', 'job-1:write', WRITE, meta(1, 'write', 2))).toEqual({ ...first, replayed: true });
      expect(await client.call('read_file', 'job-1:read', { path: 'notes/a.txt' }, meta())).toEqual({
        result: { exists: true, content: 'hello', version: 1 },
        externalRef: null,
        replayed: false,
      });
      expect(readLedger(file)).toHaveLength(1);
      expect(readCalls(file).map((c) => c.outcome)).toEqual(['applied', 'replayed', 'applied']);
      expect(await client.ledger()).toEqual(readLedger(file));
    });

    it('answers 400 for bad bodies, naming the path, and records them as failed calls', async () => {
      const { server, client, file } = await start();
      const cases: Array<[string, string, string]> = [
        ['not json', 'WORLD_BAD_JSON', ''],
        [JSON.stringify({ tool: 'write_file', key: 'k', args: WRITE }), 'WORLD_BAD_REQUEST', 'meta'],
        [JSON.stringify({ tool: 'drop_database', key: 'k', args: {}, meta: meta() }), 'WORLD_UNKNOWN_TOOL', 'tool'],
        [JSON.stringify({ tool: 'charge_customer', key: 'k', args: { customer: 'c' }, meta: meta() }), 'WORLD_BAD_REQUEST', 'args.amount'],
        [JSON.stringify({ tool: 'charge_customer', key: '', args: CHARGE, meta: meta() }), 'WORLD_BAD_REQUEST', 'key'],
        [JSON.stringify({ tool: 'charge_customer', key: 'k', args: CHARGE, meta: { ...meta(), attempt: -1 } }), 'WORLD_BAD_REQUEST', 'meta.attempt'],
        [JSON.stringify({ tool: 'charge_customer', key: 'k', args: CHARGE, meta: meta(), extra: 1 }), 'WORLD_BAD_REQUEST', '(body)'],
      ];
      for (const [body, code, path] of cases) {
        const answer = await raw(server.url, 'POST', '/call', body);
        expect(answer.status, body).toBe(400);
        expect(answer.body.error.code, body).toBe(code);
        if (path) expect(answer.body.error.message, body).toContain(`${path}:`);
      }
      expect(readLedger(file)).toEqual([]);
      expect(readCalls(file).map((c) => [c.outcome, c.status])).toEqual(cases.map(() => ['failed', 400]));
      // The client turns a 400 into a permanent error: retrying the same body cannot help.
      const error = await failure(client.call('charge_customer', 'k', { customer: 'c' }, meta()));
      expect(error).toBeInstanceOf(PermanentError);
      expect(error).toMatchObject({ code: 'WORLD_BAD_REQUEST', status: 400 });
    });

    it('answers 404 and 405 with codes', async () => {
      const { server } = await start();
      expect((await raw(server.url, 'GET', '/nope')).body.error.code).toBe('WORLD_NOT_FOUND');
      const wrong = await raw(server.url, 'GET', '/call');
      expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'WORLD_METHOD_NOT_ALLOWED', 'POST']);
    });

    it('refuses a keyed call reused with other arguments as a permanent error', async () => {
      const { client, file } = await start();
      await client.call('write_file', 'job-1:write', WRITE, meta());
      const error = await failure(client.call('write_file', 'job-1:write', { ...WRITE, content: 'other' }, meta()));
      expect(error).toBeInstanceOf(PermanentError);
      expect(error).toMatchObject({ code: 'WORLD_KEY_REUSED', status: 409 });
      expect(readLedger(file)).toHaveLength(1);
    });
  });

  describe('faults', () => {
    it('fail 503 and 429 before applying: transient, nothing in the ledger, and the retry applies once', async () => {
      const { client, file } = await start();
      await client.armFault({ match: { key: 'j:charge' }, action: { type: 'fail', status: 503 } });
      await client.armFault({ match: { key: 'j:charge' }, action: { type: 'fail', status: 429 } });
      for (const status of [503, 429]) {
        const error = await failure(client.call('charge_customer', 'j:charge', CHARGE, meta()));
        expect(error).toBeInstanceOf(TransientError);
        expect(error).toMatchObject({ code: 'WORLD_INJECTED_FAILURE', status });
      }
      expect(readLedger(file)).toEqual([]);
      await client.call('charge_customer', 'j:charge', CHARGE, meta());
      expect(readLedger(file)).toHaveLength(1);
      expect(readCalls(file).map((c) => [c.outcome, c.status, c.faultId])).toEqual([
        ['failed', 503, 1],
        ['failed', 429, 2],
        ['applied', 200, null],
      ]);
    });

    it('fail 401 and 403 before applying: permanent', async () => {
      const { client, file } = await start();
      await client.armFault({ match: { tool: 'send_email' }, times: 2, action: { type: 'fail', status: 401 } });
      await client.armFault({ match: { tool: 'write_file' }, action: { type: 'fail', status: 403 } });
      expect(await failure(client.call('send_email', 'j:mail', { to: 'a@example.com', subject: 's' }, meta()))).toBeInstanceOf(PermanentError);
      const forbidden = await failure(client.call('write_file', 'j:w', WRITE, meta()));
      expect(forbidden).toBeInstanceOf(PermanentError);
      expect(forbidden.status).toBe(403);
      expect(readLedger(file)).toEqual([]);
    });

    it('drop: the effect is committed, the response is lost, the client sees an unknown outcome, reconcile finds it', async () => {
      const { client, file, logged } = await start();
      await client.armFault({ match: { tool: 'charge_customer' }, action: { type: 'drop' } });
      const error = await failure(client.call('charge_customer', 'j:charge', CHARGE, meta()));
      expect(error).toBeInstanceOf(UnknownOutcomeError);
      expect(error).toMatchObject({ code: 'WORLD_RESPONSE_LOST' });
      expect(readLedger(file)).toMatchObject([{ key: 'j:charge', externalRef: 'ch_000001' }]);
      expect(readCalls(file)).toMatchObject([{ outcome: 'dropped', status: null, faultId: 1, effectSeq: 1 }]);
      expect(await client.reconcile('charge_customer', 'j:charge')).toMatchObject({ status: 'completed', externalRef: 'ch_000001', applied: 1 });
      expect(logged).toMatchObject([{ outcome: 'dropped', fault: 'drop', externalRef: 'ch_000001' }]);
    });

    it('drop on a keyed tool: the retry replays the committed effect', async () => {
      const { client, file } = await start();
      await client.armFault({ match: { key: 'j:write' }, action: { type: 'drop' } });
      expect(await failure(client.call('write_file', 'j:write', WRITE, meta()))).toBeInstanceOf(UnknownOutcomeError);
      expect(await client.call('write_file', 'j:write', WRITE, meta(1, 'write', 2))).toMatchObject({ replayed: true, externalRef: 'fv_000001' });
      expect(readLedger(file)).toHaveLength(1);
    });

    it('error_after_apply: 500, an unknown outcome, and the effect is in the ledger', async () => {
      const { client, file } = await start();
      await client.armFault({ match: { nth: 1 }, action: { type: 'error_after_apply' } });
      const error = await failure(client.call('charge_customer', 'j:charge', CHARGE, meta()));
      expect(error).toBeInstanceOf(UnknownOutcomeError);
      expect(error).toMatchObject({ code: 'WORLD_INJECTED_ERROR_AFTER_APPLY', status: 500 });
      expect(readLedger(file)).toHaveLength(1);
      expect(readCalls(file)).toMatchObject([{ outcome: 'applied', status: 500, faultId: 1 }]);
    });

    it('delay applied: past the caller’s timeout the effect is already committed; an unknown outcome', async () => {
      const { client, file } = await start(150);
      // Held for ten minutes, past the test's own timeout: a call that ends at all ended by the caller giving up.
      await client.armFault({ match: { tool: 'charge_customer' }, action: { type: 'delay', ms: 600_000, applied: true } });
      const error = await failure(client.call('charge_customer', 'j:charge', CHARGE, meta()));
      expect(error).toBeInstanceOf(UnknownOutcomeError);
      expect(error).toMatchObject({ code: 'WORLD_TIMEOUT' });
      expect(readLedger(file)).toHaveLength(1);
      expect(await client.reconcile('charge_customer', 'j:charge')).toMatchObject({ status: 'completed' });
    });

    it('delay not applied: the caller times out, the ledger stays empty, reconcile says not_executed', async () => {
      const { client, file } = await start(150);
      await client.armFault({ match: { tool: 'charge_customer' }, action: { type: 'delay', ms: 1_000, applied: false } });
      const error = await failure(client.call('charge_customer', 'j:charge', CHARGE, meta()));
      expect(error).toBeInstanceOf(UnknownOutcomeError);
      expect(error).toMatchObject({ code: 'WORLD_TIMEOUT' });
      expect(readLedger(file)).toEqual([]);
      expect(await client.reconcile('charge_customer', 'j:charge')).toEqual({ status: 'not_executed' });
    });

    it('delay shorter than the caller’s patience: applied answers 200 once its hold is over, not before; not applied answers 503', async () => {
      const { newClient, file } = await start();
      const patient = newClient(5_000);
      await patient.armFault({ match: { key: 'j:a' }, action: { type: 'delay', ms: 250, applied: true } });
      await patient.armFault({ match: { key: 'j:b' }, action: { type: 'delay', ms: 250, applied: false } });
      // The hold's timer is the test's to move (and so is the caller's patience, which never runs out here):
      // the order of commit, hold and answer is seen, not guessed from a stopwatch.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      cleanup.push(() => void vi.useRealTimers());
      let answered = false;
      const call = patient.call('write_file', 'j:a', WRITE, meta()).finally(() => (answered = true));
      await waitFor(() => readLedger(file).length > 0, { timeoutMs: 5_000, what: 'the delayed write to be committed' });
      vi.advanceTimersByTime(249);
      // A whole round trip to the world after that: an answer sent by then would have come first.
      await patient.health();
      expect(answered, 'committed, but held: not answered before its 250 ms').toBe(false);
      vi.advanceTimersByTime(1);
      expect(await call).toMatchObject({ replayed: false, externalRef: 'fv_000001' });

      const late = failure(patient.call('write_file', 'j:b', { ...WRITE, path: 'b.txt' }, meta()));
      await waitFor(() => readCalls(file).length === 2, { timeoutMs: 5_000, what: 'the second delayed call to arrive' });
      vi.advanceTimersByTime(250);
      expect(await late).toBeInstanceOf(TransientError);
      expect(await late).toMatchObject({ code: 'WORLD_DELAYED_NOT_APPLIED', status: 503 });
      expect(readLedger(file).map((e) => e.key)).toEqual(['j:a']);
    });

    it('matches the Nth call overall, by tool, and by key; reports fired counts, 0 for a fault that never fired', async () => {
      const { client } = await start();
      const third = await client.armFault({ match: { nth: 3 }, action: { type: 'fail', status: 503 } });
      const byTool = await client.armFault({ match: { tool: 'send_email' }, times: 2, action: { type: 'fail', status: 503 } });
      const never = await client.armFault({ match: { key: 'nobody-uses-this' }, action: { type: 'drop' } });
      const outcomes: string[] = [];
      for (let n = 1; n <= 4; n++) {
        outcomes.push(
          await client.call('charge_customer', `j:${n}`, CHARGE, meta()).then(
            () => 'ok',
            (e: { code: string }) => e.code,
          ),
        );
      }
      expect(outcomes).toEqual(['ok', 'ok', 'WORLD_INJECTED_FAILURE', 'ok']);
      await failure(client.call('send_email', 'j:mail', { to: 'a@example.com', subject: 's' }, meta()));
      const faults = await client.faults();
      expect(faults.map((f) => [f.id, f.fired, f.remaining])).toEqual([
        [third.id, 1, 0],
        [byTool.id, 1, 1],
        [never.id, 0, 1],
      ]);
      const cleared = await client.clearFaults();
      expect(cleared.map((f) => f.fired)).toEqual([1, 1, 0]);
      expect(await client.faults()).toEqual([]);
      expect(await client.faults({ includeCleared: true })).toHaveLength(3);
      await client.call('send_email', 'j:mail2', { to: 'a@example.com', subject: 's' }, meta());
    });

    it('rejects a bad fault spec with a 400 that names the path', async () => {
      const { server, client } = await start();
      const answer = await raw(server.url, 'POST', '/faults', JSON.stringify({ action: { type: 'fail', status: 500 } }));
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'WORLD_BAD_REQUEST', issues: [{ path: 'action.status' }] });
      expect(answer.body.error.message).toContain('action.status:');
      expect((await raw(server.url, 'POST', '/faults', '{')).body.error.code).toBe('WORLD_BAD_JSON');
      const error = await failure(client.armFault({ action: { type: 'drop' }, times: 0 }));
      expect(error).toBeInstanceOf(PermanentError);
      expect(error.message).toContain('times:');
      expect(await client.faults()).toEqual([]);
    });
  });

  describe('reconcile', () => {
    it('answers completed, not_executed and unknown', async () => {
      const { client } = await start();
      await client.call('charge_customer', 'j:charge', CHARGE, meta());
      await client.call('send_email', 'j:mail', { to: 'a@example.com', subject: 's' }, meta());
      expect(await client.reconcile('charge_customer', 'j:charge')).toEqual({
        status: 'completed',
        result: { charge: 'ch_000001', status: 'succeeded' },
        externalRef: 'ch_000001',
        applied: 1,
      });
      expect(await client.reconcile('charge_customer', 'j:never')).toEqual({ status: 'not_executed' });
      // The mail went out (the ledger has it), but a mail relay cannot be asked.
      expect(await client.reconcile('send_email', 'j:mail')).toMatchObject({ status: 'unknown', reason: expect.any(String) });
      expect(await client.ledger()).toHaveLength(2);
    });

    it('rejects a missing parameter or an unknown tool', async () => {
      const { server, client } = await start();
      const missing = await raw(server.url, 'GET', '/reconcile?tool=charge_customer');
      expect([missing.status, missing.body.error.code]).toEqual([400, 'WORLD_BAD_REQUEST']);
      expect(missing.body.error.message).toContain('key:');
      const unknown = await failure(client.reconcile('drop_database', 'k'));
      expect(unknown).toBeInstanceOf(PermanentError);
      expect(unknown).toMatchObject({ code: 'WORLD_UNKNOWN_TOOL' });
    });
  });

  describe('compensation', () => {
    it('undoes a write, a branch and a publication through their compensation tools', async () => {
      const { client } = await start();
      await client.call('write_file', 'j:w1', { path: 'a.txt', content: 'before' }, meta());
      await client.call('create_branch', 'j:branch', { name: 'feature/x' }, meta());
      await client.call('write_file', 'j:w2', { path: 'a.txt', content: 'after' }, meta());
      await client.call('publish_article', 'j:pub', { slug: 'launch' }, meta());
      // Reverse order, as a saga compensates.
      await client.call('unpublish_article', 'j:pub:undo', { compensates: 'j:pub' }, meta());
      await client.call('restore_file_version', 'j:w2:undo', { compensates: 'j:w2' }, meta());
      await client.call('delete_branch', 'j:branch:undo', { compensates: 'j:branch' }, meta());
      expect((await client.call('read_file', 'r', { path: 'a.txt' }, meta())).result).toMatchObject({ exists: true, content: 'before' });
      const state = await client.state();
      expect(state.branches).toEqual([]);
      expect(state.articles).toEqual([{ slug: 'launch', published: false, publications: 1 }]);
      const nothing = await client.call('delete_branch', 'j:ghost:undo', { compensates: 'j:ghost' }, meta());
      expect(nothing.result).toEqual({ nothing_to_compensate: true });
      const ledger = await client.ledger();
      expect(ledger.filter((e) => e.compensates !== null).map((e) => [e.tool, e.compensates])).toEqual([
        ['unpublish_article', 'j:pub'],
        ['restore_file_version', 'j:w2'],
        ['delete_branch', 'j:branch'],
        ['delete_branch', 'j:ghost'],
      ]);
    });
  });

  describe('concurrency', () => {
    const CALLS = 50;
    const callers = (world: TestWorld) => Array.from({ length: 5 }, () => world.newClient());

    it(`${CALLS} concurrent calls on distinct keys from 5 clients: no lost row, seqs dense`, async () => {
      const w = await start();
      const clients = callers(w);
      const answers = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          clients[i % clients.length]!.call('write_file', `job-${i}:write`, { path: `f${i}.txt`, content: String(i) }, meta(i)),
        ),
      );
      expect(answers.every((a) => !a.replayed)).toBe(true);
      const rows = readLedger(w.file);
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: CALLS }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.key)).size).toBe(CALLS);
      expect(readCalls(w.file)).toHaveLength(CALLS);
    });

    it(`${CALLS} concurrent calls racing on one key of an idempotent tool: exactly one row`, async () => {
      const w = await start();
      const clients = callers(w);
      const answers = await Promise.all(
        Array.from({ length: CALLS }, (_, i) => clients[i % clients.length]!.call('write_file', 'job-1:write', WRITE, meta(1, 'write', i + 1))),
      );
      expect(readLedger(w.file)).toHaveLength(1);
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      expect(new Set(answers.map((a) => a.externalRef))).toEqual(new Set(['fv_000001']));
    });

    it(`${CALLS} concurrent calls racing on one key of a non-idempotent tool: one row per call`, async () => {
      const w = await start();
      const clients = callers(w);
      await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          clients[i % clients.length]!.call('charge_customer', 'job-1:charge', CHARGE, meta(1, 'charge', i + 1)),
        ),
      );
      const rows = readLedger(w.file);
      expect(rows).toHaveLength(CALLS);
      expect(new Set(rows.map((r) => r.externalRef)).size).toBe(CALLS);
      expect(await w.client.reconcile('charge_customer', 'job-1:charge')).toMatchObject({ status: 'completed', applied: CALLS });
    });
  });

  describe('the client', () => {
    it('maps a refused connection to a transient error: nothing was sent', async () => {
      const { server } = await start();
      const url = server.url;
      await server.close();
      const client = new WorldClient(url, { timeoutMs: 1_000 });
      cleanup.push(() => client.close());
      const error = await failure(client.call('charge_customer', 'k', CHARGE, meta()));
      expect(error).toBeInstanceOf(TransientError);
      expect(error).toMatchObject({ code: 'WORLD_UNREACHABLE' });
    });

    // Stub servers that misbehave in ways the world never does on its own, so each client path is reached.
    const stub = async (onConnection: (socket: Socket) => void): Promise<string> => {
      const server = createNetServer(onConnection);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      const sockets = new Set<Socket>();
      server.on('connection', (socket) => sockets.add(socket));
      cleanup.push(() => {
        for (const socket of sockets) socket.destroy();
      });
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const stubClient = (url: string) => {
      const client = new WorldClient(url, { timeoutMs: 200 });
      cleanup.push(() => client.close());
      return client;
    };
    const answer = (status: string, body: string) => (socket: Socket) =>
      socket.once('data', () =>
        socket.end(
          `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        ),
      );

    it('silence after sending: a call is an unknown outcome, a read is transient', async () => {
      const client = stubClient(await stub(() => {}));
      const call = await failure(client.call('charge_customer', 'k', CHARGE, meta()));
      expect(call).toBeInstanceOf(UnknownOutcomeError);
      expect(call).toMatchObject({ code: 'WORLD_TIMEOUT', status: null });
      const read = await failure(client.reconcile('charge_customer', 'k'));
      expect(read).toBeInstanceOf(TransientError);
      expect(read).toMatchObject({ code: 'WORLD_TIMEOUT' });
    });

    it('a connection reset after sending: a call is an unknown outcome, a read is transient', async () => {
      const client = stubClient(await stub((socket) => socket.once('data', () => socket.resetAndDestroy())));
      expect(await failure(client.call('charge_customer', 'k', CHARGE, meta()))).toMatchObject({
        name: 'UnknownOutcomeError',
        code: 'WORLD_RESPONSE_LOST',
      });
      expect(await failure(client.ledger())).toMatchObject({ name: 'TransientError', code: 'WORLD_RESPONSE_LOST' });
    });

    it('an unreadable 200 or a 502 to a call is an unknown outcome', async () => {
      const garbled = stubClient(await stub(answer('200 OK', '{"result":')));
      expect(await failure(garbled.call('charge_customer', 'k', CHARGE, meta()))).toMatchObject({
        name: 'UnknownOutcomeError',
        code: 'WORLD_BAD_RESPONSE',
      });
      const gateway = stubClient(await stub(answer('502 Bad Gateway', '{}')));
      expect(await failure(gateway.call('charge_customer', 'k', CHARGE, meta()))).toMatchObject({
        name: 'UnknownOutcomeError',
        code: 'WORLD_HTTP_STATUS',
        status: 502,
      });
      expect(await failure(gateway.health())).toMatchObject({ name: 'TransientError', status: 502 });
    });
  });
});
