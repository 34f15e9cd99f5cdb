#!/usr/bin/env node
/*
 * A load generator: N busy processes for a bounded time, then none.
 *
 *   node scripts/load.mjs [--procs N] [--seconds S]        (defaults: 6 processes, 60 s)
 *   node scripts/load.mjs --procs 6 --seconds 600 -- npm run drill
 *
 * Each busy process spins on the CPU (no I/O, no memory to speak of) until its
 * time is up, its parent is gone, or it is told to stop. With a command after
 * `--`, the load runs while the command runs and stops when it ends (the exit
 * code is the command's). Use it to see how a drill behaves on a CI runner as
 * busy as yours: on a 2-core machine, 6 busy processes give a load of about 6
 * to 8 on top of the drill's own.
 *
 * Nothing outlives it: every busy process checks its deadline and its parent
 * every few milliseconds, and the generator stops them on exit, SIGINT and SIGTERM.
 */
import { spawn } from 'node:child_process';

const BUSY = `
const end = Date.now() + Number(process.argv[1]);
const parent = process.ppid;
let n = 0;
for (;;) {
  for (let i = 0; i < 1e5; i++) n = (n * 31 + i) % 1000003;
  if (Date.now() >= end) break;
  try { process.kill(parent, 0); } catch { break; }
  if (process.ppid !== parent) break;
}
`;

function parse(argv) {
  const options = { procs: 6, seconds: 60, command: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      options.command = argv.slice(i + 1);
      break;
    }
    const value = Number(argv[i + 1]);
    if (arg === '--procs' && Number.isInteger(value) && value >= 0 && value <= 256) options.procs = value;
    else if (arg === '--seconds' && Number.isFinite(value) && value > 0 && value <= 86_400) options.seconds = value;
    else {
      process.stderr.write(`load: bad argument ${arg}${argv[i + 1] === undefined ? '' : ` ${argv[i + 1]}`}\n`);
      process.stderr.write('usage: node scripts/load.mjs [--procs N (0-256)] [--seconds S (up to 86400)] [-- command ...]\n');
      process.exit(2);
    }
    i++;
  }
  return options;
}

const options = parse(process.argv.slice(2));
const busy = [];
for (let i = 0; i < options.procs; i++) {
  busy.push(spawn(process.execPath, ['-e', BUSY, String(options.seconds * 1000)], { stdio: 'ignore' }));
}
const stopAll = () => {
  for (const child of busy) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}
process.stderr.write(`load: ${options.procs} busy process(es) for at most ${options.seconds} s\n`);

if (options.command.length > 0) {
  const [file, ...args] = options.command;
  const child = spawn(file, args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    stopAll();
    process.exit(code ?? (signal ? 128 : 1));
  });
} else {
  const done = setTimeout(() => {
    stopAll();
    process.exit(0);
  }, options.seconds * 1000);
  done.unref();
  await Promise.all(busy.map((child) => new Promise((resolve) => child.on('exit', resolve))));
}
