import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { deliverProblems, problemsOf } from '../../../src/adapters/process/wire-problems.js';
import { AnswerSchema, isWireOp, okAnswerOf, RequestSchema } from '../../../src/adapters/process/wire-schemas.js';
import { PYTHON } from './python.js';

/*
 * docs/protocol.md's "A transcript of one delivery": every line is a message
 * the schemas accept (a request, its answer with the body of its op, the
 * deliver event), the exchange hangs together, and it is what
 * scripts/record-transcript.mjs records today, times aside.
 */

const ROOT = join(import.meta.dirname, '..', '..', '..');
const HEADING = '## A transcript of one delivery';

/** The transcript's lines: the first fenced block under its heading. */
function transcriptInDocs(): string[] {
  const docs = readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8');
  const section = docs.slice(docs.indexOf(HEADING));
  expect(section.startsWith(HEADING), `docs/protocol.md has a section "${HEADING}"`).toBe(true);
  const block = /```text\n([\s\S]*?)\n```/.exec(section);
  expect(block, 'the section holds the transcript in a ```text block').not.toBeNull();
  return block![1]!.split('\n');
}

interface Exchange {
  child: string;
  direction: '->' | '<-';
  message: Record<string, any>;
}

/** The lines as messages, each with its child (the `#` line above it) and its direction. */
function exchanges(lines: readonly string[]): Exchange[] {
  let child = '';
  return lines.flatMap((line): Exchange[] => {
    if (line.startsWith('# ')) {
      child = line.slice(2);
      return [];
    }
    const direction = line.slice(0, 2);
    expect(['->', '<-'], `a line is "# child", "-> request" or "<- answer or event": ${line}`).toContain(direction);
    return [{ child, direction: direction as Exchange['direction'], message: JSON.parse(line.slice(3)) }];
  });
}

/** Every problem of one line against the schemas: a request's op, an answer's type and its op's body, the deliver event. */
function problemsOfLine({ direction, message }: Exchange, sent: ReadonlyMap<number, string>): string[] {
  if (direction === '->') return problemsOf(RequestSchema, message, `request ${message.op}`);
  if ('event' in message) return deliverProblems(message);
  const problems = problemsOf(AnswerSchema, message, 'answer');
  const op = sent.get(message.re);
  if (message.type !== 'ok' || op === undefined || !isWireOp(op)) return problems;
  return [...problems, ...problemsOf(okAnswerOf(op), message, `answer to ${op}`)];
}

describe('the transcript of one delivery in docs/protocol.md', () => {
  const lines = transcriptInDocs();
  const all = exchanges(lines);

  it('is every message of the exchange the brief names: open, work, deliver, heartbeat, settle done, work answered', () => {
    const worker = all.filter((e) => e.child.startsWith("the drill worker's child"));
    const ops = worker.filter((e) => e.direction === '->').map((e) => e.message.op);
    expect(ops).toEqual(['hello', 'open', 'work', 'heartbeat', 'settle', 'stop_work']);
    expect(worker.filter((e) => e.message.event === 'deliver')).toHaveLength(1);
    const settle = worker.find((e) => e.message.op === 'settle')!.message;
    expect(settle.settlement.kind).toBe('done');
    expect(worker.at(-1)!.message).toMatchObject({ re: ops.indexOf('work') + 1, type: 'ok', body: { processed: 1 } });
  });

  it('holds every line to protocol.schema.json: each request, each answer with the body of its op, the deliver event', () => {
    const problems: string[] = [];
    let sent = new Map<number, string>();
    let child = '';
    for (const exchange of all) {
      if (exchange.child !== child) [child, sent] = [exchange.child, new Map()];
      if (exchange.direction === '->') sent.set(exchange.message.id, exchange.message.op);
      problems.push(...problemsOfLine(exchange, sent));
    }
    expect(problems).toEqual([]);
  });

  it('fails a line the schemas refuse, naming it (a check that cannot fail proves nothing)', () => {
    const broken = all.map((e) =>
      e.message.event === 'deliver' ? { ...e, message: { ...e.message, delivery: { ...e.message.delivery, lease_until: 'soon' } } } : e,
    );
    const sent = new Map<number, string>([[5, 'settle']]);
    expect(broken.flatMap((e) => (e.message.event === 'deliver' ? problemsOfLine(e, sent) : []))).toEqual([
      'deliver.delivery.lease_until: expected a fixed-width UTC time (YYYY-MM-DDTHH:MM:SS.mmmZ), got "soon"',
    ]);
    const answer: Exchange = { child: 'x', direction: '<-', message: { re: 5, type: 'ok', body: { status: 'finished' } } };
    expect(problemsOfLine(answer, sent)).toEqual([expect.stringMatching(/^answer to settle\.body\.status: expected one of pending, /)]);
  });

  it('hangs together: each request answered once, by its child; every write of the holder shows the delivered claim', () => {
    for (const child of new Set(all.map((e) => e.child))) {
      const own = all.filter((e) => e.child === child);
      const ids = own.filter((e) => e.direction === '->').map((e) => e.message.id);
      const answered = own.filter((e) => e.direction === '<-' && 're' in e.message).map((e) => e.message.re);
      expect(new Set(ids).size, `${child}: ids unique`).toBe(ids.length);
      expect([...answered].sort(), `${child}: every request answered once`).toEqual([...ids].sort());
    }
    const claim = all.find((e) => e.message.event === 'deliver')!.message.delivery;
    for (const op of ['heartbeat', 'settle']) {
      const write = all.find((e) => e.message.op === op)!.message;
      expect({ job_id: write.job_id, holder: write.holder, epoch: write.epoch }, op).toEqual({
        job_id: claim.job_id,
        holder: claim.holder,
        epoch: claim.epoch,
      });
    }
  });

  it('is what scripts/record-transcript.mjs records today, times aside', { timeout: 60_000 }, async () => {
    const recorded = await execa(process.execPath, [join(ROOT, 'scripts/record-transcript.mjs'), '--python', PYTHON], { reject: false });
    expect(recorded.exitCode, recorded.stderr).toBe(0);
    // The drill's clock (`now`) and every time the child wrote change with each recording; nothing else may.
    const timeless = (text: string) => text.replaceAll(/"now":\d+/g, '"now":N').replaceAll(/"\d{4}-\d{2}-\d{2}T[\d:.]+Z"/g, '"TIME"');
    expect(
      timeless(lines.join('\n')),
      'docs/protocol.md\'s transcript is stale: paste the output of `node scripts/record-transcript.mjs` into "A transcript of one delivery"',
    ).toBe(timeless(recorded.stdout.trimEnd()));
  });
});
