import { createHash } from 'node:crypto';

/*
 * Just enough of two wire protocols to find where each request and each reply
 * ends in a stream of chunks, and what a request is called: PostgreSQL's
 * frontend/backend protocol 3 (a request ends at a simple Query or a Sync, its
 * reply at ReadyForQuery) and Redis's RESP (a request is one command, a reply
 * one value). What the fault proxy needs to swallow the reply to one named
 * request and nothing else. Each framer is fed the chunks of one direction of
 * one connection, in order, and keeps what it has not yet seen end.
 */

/** The wire protocols the proxy can frame. */
export type WireProtocol = 'postgres' | 'resp';

/** One request: what it is called, and what surrounds it (a COMMIT's transaction, a command's arguments), for a drop to aim by. */
export interface WireRequest {
  name: string;
  context: string;
}

/** Splits one direction of a connection into whole requests (client to server): each that ends in a chunk. */
export interface RequestFramer {
  push(chunk: Buffer): WireRequest[];
}

/** Splits one direction of a connection into whole replies (server to client): the offset in the chunk just past each that ends in it. */
export interface ReplyFramer {
  push(chunk: Buffer): number[];
}

/** A stream's bytes not yet framed, and how far into the chunk now being fed they reach. */
class Pending {
  private buffer: Buffer = Buffer.alloc(0);
  /** Where the bytes of the chunk now being fed start in `buffer`. */
  private chunkStart = 0;

  feed(chunk: Buffer): void {
    this.chunkStart = this.buffer.length;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
  }

  get bytes(): Buffer {
    return this.buffer;
  }

  /** Drops the first `n` bytes (a whole message); returns the offset in the current chunk just past them. */
  consume(n: number): number {
    this.buffer = this.buffer.subarray(n);
    this.chunkStart -= n;
    return -this.chunkStart;
  }
}

// --- PostgreSQL ---------------------------------------------------------------

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** The statement a Query ('Q') or Parse ('P') message carries, its first line trimmed. */
function statementOf(type: string, body: Buffer): string {
  let text = body;
  if (type === 'P') {
    const nameEnd = body.indexOf(0);
    text = body.subarray(nameEnd + 1);
  }
  const end = text.indexOf(0);
  return (end === -1 ? text : text.subarray(0, end)).toString('utf8').trim().replace(/\s+/g, ' ');
}

/** The name a Parse ('P') message gives its statement ('' for the unnamed one), or a Bind ('B') the statement it runs. */
function statementNameOf(type: 'P' | 'B', body: Buffer): string {
  // Parse: the statement's name first. Bind: the portal's name, then the statement's.
  const start = type === 'P' ? 0 : body.indexOf(0) + 1;
  return body.subarray(start, body.indexOf(0, start)).toString('utf8');
}

/**
 * PostgreSQL, client to server: the start-up message is request 0; then each Query, Sync or FunctionCall ends one,
 * named by its first statement. A COMMIT's context is the statements of its transaction since BEGIN, so a drop can
 * aim at the COMMIT of one kind of write. A named statement is parsed once per connection and then only bound by
 * its name: the framer keeps the text of each one parsed, so a run of it by name is named by its text too.
 */
export class PgRequestFramer implements RequestFramer {
  private readonly pending = new Pending();
  private readonly named = new Map<string, string>();
  private started = false;
  private statement: string | undefined;
  private transaction: string[] | undefined;
  /** The server answers an SSL or GSSAPI request with one unframed byte: the reply framer must know. */
  onUnframedByte: (() => void) | undefined;

  push(chunk: Buffer): WireRequest[] {
    this.pending.feed(chunk);
    const names: WireRequest[] = [];
    for (;;) {
      const bytes = this.pending.bytes;
      if (!this.started) {
        if (bytes.length < 8) break;
        const length = bytes.readInt32BE(0);
        if (bytes.length < length) break;
        const code = bytes.readInt32BE(4);
        this.pending.consume(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.onUnframedByte?.();
          continue;
        }
        this.started = true;
        names.push({ name: 'startup', context: '' });
        continue;
      }
      if (bytes.length < 5) break;
      const type = String.fromCharCode(bytes[0]!);
      const length = bytes.readInt32BE(1);
      if (bytes.length < 1 + length) break;
      const body = bytes.subarray(5, 1 + length);
      if (type === 'P') {
        const name = statementNameOf(type, body);
        if (name !== '') this.named.set(name, statementOf(type, body));
      }
      if ((type === 'Q' || type === 'P') && this.statement === undefined) this.statement = statementOf(type, body);
      if (type === 'B' && this.statement === undefined) this.statement = this.named.get(statementNameOf(type, body));
      this.pending.consume(1 + length);
      if (type === 'Q' || type === 'S' || type === 'F') {
        names.push(this.request(this.statement ?? (type === 'S' ? 'sync' : 'function call')));
        this.statement = undefined;
      }
    }
    return names;
  }

  /** The request named `name`, with its transaction's statements as the context of the one that ends it. */
  private request(name: string): WireRequest {
    const verb = name.split(' ', 1)[0]!.toUpperCase();
    if (verb === 'BEGIN' || verb === 'START') {
      this.transaction = [];
      return { name, context: '' };
    }
    if (verb === 'COMMIT' || verb === 'END' || verb === 'ROLLBACK' || verb === 'ABORT') {
      const context = (this.transaction ?? []).join('; ');
      this.transaction = undefined;
      return { name, context };
    }
    this.transaction?.push(name);
    return { name, context: name };
  }
}

/** PostgreSQL, server to client: a reply ends at each ReadyForQuery ('Z'); an SSL or GSSAPI answer is one byte of its own. */
export class PgReplyFramer implements ReplyFramer {
  private readonly pending = new Pending();
  private unframed = 0;

  /** The next byte from the server is an unframed answer (to an SSL or GSSAPI request). */
  expectUnframedByte(): void {
    this.unframed++;
  }

  push(chunk: Buffer): number[] {
    this.pending.feed(chunk);
    const ends: number[] = [];
    for (;;) {
      const bytes = this.pending.bytes;
      if (this.unframed > 0) {
        if (bytes.length < 1) break;
        this.unframed--;
        this.pending.consume(1);
        continue;
      }
      if (bytes.length < 5) break;
      const type = String.fromCharCode(bytes[0]!);
      const length = bytes.readInt32BE(1);
      if (bytes.length < 1 + length) break;
      const end = this.pending.consume(1 + length);
      if (type === 'Z') ends.push(end);
    }
    return ends;
  }
}

// --- RESP (Redis) ---------------------------------------------------------------

/** The index just past one whole RESP value starting at `from`, or -1 when it has not all come. */
function valueEnd(bytes: Buffer, from: number): number {
  if (from >= bytes.length) return -1;
  const type = String.fromCharCode(bytes[from]!);
  // The end of its first line (the index of its \r), or -1 when it has not all come.
  const end = bytes.indexOf('\r\n', from);
  if (end === -1) return -1;
  const header = bytes.subarray(from + 1, end).toString('latin1');
  const after = end + 2;
  switch (type) {
    case '$':
    case '!':
    case '=': {
      const length = Number(header);
      if (length < 0) return after;
      return bytes.length >= after + length + 2 ? after + length + 2 : -1;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const count = Number(header);
      if (count < 0) return after;
      let at = after;
      for (let i = 0; i < (type === '%' || type === '|' ? 2 * count : count); i++) {
        at = valueEnd(bytes, at);
        if (at === -1) return -1;
      }
      // An attribute ('|') comes before the value it describes: the reply is that value.
      return type === '|' ? valueEnd(bytes, at) : at;
    }
    default:
      // '+', '-', ':', '_', ',', '#', '(': one line.
      return after;
  }
}

/** The bulk strings of a command array, or null when it is not one (an inline command is split on spaces). */
function commandWords(bytes: Buffer, end: number): string[] {
  if (bytes[0] !== 0x2a) return bytes.subarray(0, end).toString('utf8').trim().split(/\s+/);
  const words: string[] = [];
  let at = bytes.indexOf('\r\n') + 2;
  while (at < end) {
    const lineStop = bytes.indexOf('\r\n', at);
    const length = Number(bytes.subarray(at + 1, lineStop).toString('latin1'));
    const start = lineStop + 2;
    words.push(bytes.subarray(start, start + Math.max(length, 0)).toString('utf8'));
    at = start + Math.max(length, 0) + 2;
  }
  return words;
}

/** A script's SHA-1, as Redis and its clients name it (EVALSHA). */
export function scriptSha(body: string): string {
  return createHash('sha1').update(body).digest('hex');
}

/** RESP, client to server: each command, named by its verb, and an EVALSHA or EVAL by the script's name where `scripts` knows its SHA-1. */
export class RespRequestFramer implements RequestFramer {
  private readonly pending = new Pending();

  constructor(private readonly scripts: ReadonlyMap<string, string> = new Map()) {}

  push(chunk: Buffer): WireRequest[] {
    this.pending.feed(chunk);
    const names: WireRequest[] = [];
    for (;;) {
      const bytes = this.pending.bytes;
      if (bytes.length === 0) break;
      // An array of bulk strings, or an inline command: one line, as valueEnd reads any value that is not an aggregate.
      const end = valueEnd(bytes, 0);
      if (end === -1) break;
      const words = commandWords(bytes, end);
      names.push({ name: this.nameOf(words), context: words.slice(1).join(' ') });
      this.pending.consume(end);
    }
    return names;
  }

  private nameOf(words: string[]): string {
    const verb = (words[0] ?? '').toUpperCase();
    if (verb === 'EVALSHA' && words[1]) return this.scripts.get(words[1].toLowerCase()) ?? `EVALSHA ${words[1].slice(0, 12)}`;
    if (verb === 'EVAL' && words[1] !== undefined) return this.scripts.get(scriptSha(words[1])) ?? 'EVAL';
    return verb;
  }
}

/** RESP, server to client: each value is a reply, but a RESP3 push ('>'), which answers nothing. */
export class RespReplyFramer implements ReplyFramer {
  private readonly pending = new Pending();

  push(chunk: Buffer): number[] {
    this.pending.feed(chunk);
    const ends: number[] = [];
    for (;;) {
      const bytes = this.pending.bytes;
      const end = valueEnd(bytes, 0);
      if (end === -1) break;
      const push = bytes[0] === 0x3e;
      const offset = this.pending.consume(end);
      if (!push) ends.push(offset);
    }
    return ends;
  }
}

/** The two framers of one connection for `protocol`, tied together where the protocol needs it. */
export function framersFor(protocol: WireProtocol, scripts?: ReadonlyMap<string, string>): { requests: RequestFramer; replies: ReplyFramer } {
  if (protocol === 'resp') return { requests: new RespRequestFramer(scripts), replies: new RespReplyFramer() };
  const requests = new PgRequestFramer();
  const replies = new PgReplyFramer();
  requests.onUnframedByte = () => replies.expectUnframedByte();
  return { requests, replies };
}
