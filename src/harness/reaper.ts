import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { HARNESS_TOKEN_ENV } from './harness-token.js';

/*
 * This process's side of the reaper (./reaper-process.ts): the process that
 * kills everything this one started if this one dies without ending it
 * (SIGKILL, an OOM kill, a crash in native code). Started once per process,
 * before its first child; it is unref'd, so it never keeps this process
 * alive, and it exits once this one has, with whatever was left.
 */

/** The compiled reaper: the same relative path from src/harness (tests) and dist/harness (the CLI). */
const REAPER_SCRIPT = fileURLToPath(new URL('../../dist/harness/reaper-process.js', import.meta.url));

/** This process's token: not a drill's choice, so not from its seed; only unique. */
const token = randomUUID();
let reaper: ChildProcess | undefined;

/**
 * The environment entry a child of this process must carry so the reaper can
 * find it (and what it starts) should this process die; starts the reaper on
 * first use.
 */
export function reaperEnv(): Record<string, string> {
  reaper ??= startReaper();
  return { [HARNESS_TOKEN_ENV]: token };
}

/** The reaper's pid, once one runs (for tests that check it ends). */
export function reaperPid(): number | undefined {
  return reaper?.pid;
}

function startReaper(): ChildProcess {
  const child = spawn(process.execPath, [REAPER_SCRIPT, token], { detached: true, stdio: ['pipe', 'ignore', 'inherit'] });
  const lost = (why: string) => {
    if (reaper !== child) return;
    reaper = undefined;
    process.emitWarning(`the reaper ${why}: a child may outlive this process if it is killed (the next spawn starts another)`);
  };
  child.on('error', (error) => lost(`could not run (${error.message})`));
  child.on('exit', (code, signal) => lost(`exited (${signal ?? `code ${code}`})`));
  child.unref();
  (child.stdin as Socket | null)?.unref();
  return child;
}
