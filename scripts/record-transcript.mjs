#!/usr/bin/env node
/*
 * Records one delivery between a drill worker and the Python example
 * (examples/python-queue/), for docs/protocol.md's "A transcript of one
 * delivery":
 *
 *   node scripts/record-transcript.mjs [--python PATH]      (default: python3)
 *
 * Three children of `python3 -S examples/python-queue/queue_drill_queue.py`,
 * as a drill starts them: one provisions a queue in a temporary directory, a
 * producer's opens it and enqueues one job, and a worker's says hello and
 * opens it (both at once, as the drill's worker does), runs `work`, takes the
 * `deliver`, renews the lease once (`heartbeat`, a third of the lease in),
 * settles the job `done`, and stops its loop (`stop_work`, as a drill worker
 * does on SIGTERM), which answers `work`. Each line is printed as it was
 * written or read, `->` drill to child and `<-` child to drill, under a `#`
 * line naming the child. The temporary directory is printed as RUN_DIR;
 * nothing else is changed. The requests are written as the drill's
 * ChildChannel writes them (the op's fields, then id, op and now), with the
 * shipped settings (a 400 ms lease).
 *
 * Nothing outlives it: each child's stdin is closed (it exits), and the
 * directory is removed.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = 'examples/python-queue/queue_drill_queue.py';
/** The shipped scenarios' settings (scenarios.yaml, src/scenarios/schema.ts). */
const LEASE_MS = 400;
// The servers as the drill names them to a protocol 2 child (each the one given, else the local one), on every provision and open.
const SERVERS = { pg_url: 'postgres://postgres@127.0.0.1:5432/postgres', redis_url: 'redis://127.0.0.1:6379' };
const SETTINGS = { lease_ms: LEASE_MS, skew_margin_ms: 50, retry_delay: { base_ms: 20, cap_ms: 200, jitter_ms: 10 }, seed: 1_234_567 };
const ANSWER_TIMEOUT_MS = 15_000;

const python = process.argv[2] === '--python' ? process.argv[3] : 'python3';
const runDir = mkdtempSync(join(tmpdir(), 'queue-drill-transcript-'));
/** What is printed, in order. */
const lines = [];
const shown = (line) => line.replaceAll(runDir, 'RUN_DIR');

/** One child of the example: requests written, answers and events read, every line recorded. */
function child() {
  const proc = spawn(python, ['-S', EXAMPLE], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map();
  const events = [];
  let wake = null;
  let nextId = 1;
  const exited = new Promise((resolve) => proc.once('close', resolve));
  createInterface({ input: proc.stdout }).on('line', (line) => {
    lines.push(`<- ${shown(line)}`);
    const message = JSON.parse(line);
    if (message.event) {
      events.push(message);
      wake?.();
    } else pending.get(message.re)?.(message);
  });
  const waited = (what, promise) =>
    Promise.race([
      promise,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS).unref()),
    ]);
  return {
    /** Sends `op` (as ChildChannel does: the fields, then id, op and now) and resolves with its answer. */
    send(op, fields = {}) {
      const id = nextId++;
      const line = JSON.stringify({ ...fields, id, op, now: Date.now() });
      lines.push(`-> ${shown(line)}`);
      const answer = new Promise((resolve) => pending.set(id, resolve));
      proc.stdin.write(`${line}\n`);
      return waited(`answer to ${op}`, answer);
    },
    /** The next event the child sends. */
    async event() {
      if (events.length === 0) await waited('deliver', new Promise((resolve) => (wake = resolve)));
      return events.shift();
    },
    close() {
      proc.stdin.end();
      return exited;
    },
  };
}

function ok(answer) {
  if (answer.type !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(answer)}`);
  return answer.body;
}

async function record() {
  lines.push("# the adapter's short-lived child: provision a queue for the run");
  const provisioner = child();
  const { locator } = ok(await provisioner.send('provision', { run_dir: runDir, run_id: 'transcript', servers: SERVERS, queue_options: {} }));
  await provisioner.close();

  lines.push("# the producer's child: open the queue, enqueue one job");
  const producer = child();
  ok(await producer.send('open', { store: locator, servers: SERVERS, ...SETTINGS, queue_options: {} }));
  const key = createHash('sha256').update('queue-drill transcript').digest('hex');
  ok(await producer.send('enqueue', { key, action: 'plan', payload: JSON.stringify({ plan: 'write-file' }), max_attempts: 3 }));
  await producer.close();

  lines.push("# the drill worker's child: hello and open (sent together), work, one delivery, settled done, the loop stopped");
  const worker = child();
  await Promise.all([
    worker.send('hello', { protocol: 2 }),
    worker.send('open', { store: locator, servers: SERVERS, ...SETTINGS, queue_options: {} }),
  ]).then((a) => a.map(ok));
  const work = worker.send('work', { worker_id: 'w1', poll_ms: 10, max_jobs: 0, exit_when_drained: false });
  const { delivery } = await worker.event();
  const lease = { job_id: delivery.job_id, holder: delivery.holder, epoch: delivery.epoch };
  await new Promise((resolve) => setTimeout(resolve, Math.round(LEASE_MS / 3)));
  ok(await worker.send('heartbeat', lease));
  const digest = createHash('sha256').update('the verified result').digest('hex');
  ok(await worker.send('settle', { ...lease, settlement: { kind: 'done', digest } }));
  ok(await worker.send('stop_work'));
  ok(await work);
  await worker.close();
}

try {
  await record();
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  process.stderr.write(`${lines.join('\n')}\nrecord-transcript: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(runDir, { recursive: true, force: true });
}
