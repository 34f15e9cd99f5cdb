import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  framersFor,
  PgReplyFramer,
  PgRequestFramer,
  RespReplyFramer,
  RespRequestFramer,
  scriptSha,
} from '../../../src/faults/network/wire-framing.js';

/*
 * The framers find where requests and replies end however the stream is cut
 * into chunks, and name each request as a drop aims at it.
 */

/** A typed PostgreSQL message: its type byte, its length, its body. */
function pgMessage(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8');

function startup(): Buffer {
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), cstring('user'), cstring('postgres'), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([length, body]);
}

function sslRequest(): Buffer {
  const message = Buffer.alloc(8);
  message.writeInt32BE(8, 0);
  message.writeInt32BE(80877103, 4);
  return message;
}

const query = (text: string) => pgMessage('Q', cstring(text));
const parse = (text: string) => pgMessage('P', Buffer.concat([cstring(''), cstring(text), Buffer.from([0, 0])]));
const ready = () => pgMessage('Z', Buffer.from('I'));

/** Feeds `stream` in the chunks `cuts` makes of it; what each push returned, flattened (offsets made absolute). */
function fed<T>(stream: Buffer, cuts: number[], push: (chunk: Buffer) => T[], absolute?: (value: T, start: number) => T): T[] {
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  const out: T[] = [];
  let from = 0;
  for (const to of [...points, stream.length]) {
    if (to <= from) continue;
    for (const value of push(stream.subarray(from, to))) out.push(absolute ? absolute(value, from) : value);
    from = to;
  }
  return out;
}

describe('framing PostgreSQL', () => {
  const client = Buffer.concat([
    startup(),
    query('BEGIN'),
    parse("UPDATE agent_jobs SET status = 'done' WHERE id = $1"),
    pgMessage('B', Buffer.alloc(10)),
    pgMessage('E', Buffer.alloc(5)),
    pgMessage('S'),
    query('COMMIT'),
    query('SELECT 1'),
  ]);

  it('names each request, and a COMMIT by its transaction, however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const framer = new PgRequestFramer();
        expect(fed(client, cuts, (chunk) => framer.push(chunk))).toEqual([
          { name: 'startup', context: '' },
          { name: 'BEGIN', context: '' },
          { name: "UPDATE agent_jobs SET status = 'done' WHERE id = $1", context: "UPDATE agent_jobs SET status = 'done' WHERE id = $1" },
          { name: 'COMMIT', context: "UPDATE agent_jobs SET status = 'done' WHERE id = $1" },
          { name: 'SELECT 1', context: 'SELECT 1' },
        ]);
      }),
    );
  });

  it('names a named statement run by its name alone (Bind, no Parse) by the text it was parsed with', () => {
    const named = (name: string, text: string) => pgMessage('P', Buffer.concat([cstring(name), cstring(text), Buffer.from([0, 0])]));
    const bind = (statement: string) => pgMessage('B', Buffer.concat([cstring(''), cstring(statement), Buffer.alloc(6)]));
    const stream = Buffer.concat([
      startup(),
      named('qd_done', "WITH held AS (SELECT 1) UPDATE agent_jobs SET status = 'done'"),
      bind('qd_done'),
      pgMessage('E', Buffer.alloc(5)),
      pgMessage('S'),
      bind('qd_done'),
      pgMessage('E', Buffer.alloc(5)),
      pgMessage('S'),
      bind('never_parsed'),
      pgMessage('S'),
    ]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const framer = new PgRequestFramer();
        const text = "WITH held AS (SELECT 1) UPDATE agent_jobs SET status = 'done'";
        expect(fed(stream, cuts, (chunk) => framer.push(chunk))).toEqual([
          { name: 'startup', context: '' },
          { name: text, context: text },
          { name: text, context: text },
          { name: 'sync', context: 'sync' },
        ]);
      }),
    );
  });

  it('ends a reply at each ReadyForQuery, at the byte past it, and passes an SSL answer unframed', () => {
    const server = Buffer.concat([
      Buffer.from('N'),
      pgMessage('R', Buffer.alloc(4)),
      pgMessage('S', Buffer.concat([cstring('a'), cstring('b')])),
      ready(),
      pgMessage('C', cstring('COMMIT')),
      ready(),
    ]);
    const ends = [server.length - 6 - 12, server.length];
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const { requests, replies } = framersFor('postgres');
        requests.push(sslRequest());
        expect(
          fed(
            server,
            cuts,
            (chunk) => replies.push(chunk),
            (end, start) => end + start,
          ),
        ).toEqual(ends);
      }),
    );
    // Without the SSL request the 'N' is read as a message type, and nothing is framed right: the framers are tied.
    expect(new PgReplyFramer().push(server)).not.toEqual(ends);
  });
});

describe('framing RESP', () => {
  const sha = scriptSha('return redis.call("GET", KEYS[1])');
  const client = Buffer.from(
    `*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*4\r\n$7\r\nevalsha\r\n$40\r\n${sha}\r\n$1\r\n1\r\n$9\r\nreturnval\r\nPING\r\n`,
  );

  it('names each command, an EVALSHA by its script where the name is known, however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const framer = new RespRequestFramer(new Map([[sha, 'getKey']]));
        expect(fed(client, cuts, (chunk) => framer.push(chunk))).toEqual([
          { name: 'SET', context: 'k hello' },
          { name: 'getKey', context: `${sha} 1 returnval` },
          { name: 'PING', context: '' },
        ]);
      }),
    );
    expect(new RespRequestFramer().push(client).map((r) => r.name)).toEqual(['SET', `EVALSHA ${sha.slice(0, 12)}`, 'PING']);
  });

  it('ends a reply at each whole value, nested or null, and counts no push as a reply', () => {
    const values = ['+OK\r\n', '$-1\r\n', '*2\r\n*1\r\n:1\r\n$3\r\nabc\r\n', '>2\r\n+message\r\n+x\r\n', '-ERR no\r\n', '%1\r\n+a\r\n:2\r\n'];
    const server = Buffer.from(values.join(''));
    let at = 0;
    const ends = values.flatMap((value) => {
      at += value.length;
      return value.startsWith('>') ? [] : [at];
    });
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const framer = new RespReplyFramer();
        expect(
          fed(
            server,
            cuts,
            (chunk) => framer.push(chunk),
            (end, start) => end + start,
          ),
        ).toEqual(ends);
      }),
    );
  });
});
