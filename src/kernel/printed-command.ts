import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Every command queue-drill prints for a person to paste (a replay, an
 * approval, a history) starts the way that person can run queue-drill from
 * where they stand, which is not always `queue-drill`: a fresh clone after
 * `npm ci` has no `queue-drill` on its PATH. In order:
 *
 *   - `queue-drill`, when that name on the PATH is this very CLI (a global
 *     install, `npm install -g .`). The `node_modules/.bin` folders npm puts on
 *     the PATH while it runs a script or npx are passed over: they are gone
 *     once it returns.
 *   - `npx queue-drill`, when npx would find this CLI from that directory: the
 *     project npx works in (the nearest folder up with a package.json or a
 *     node_modules) is queue-drill's own clone, whose package.json names the
 *     bin, or has queue-drill installed in its node_modules. Neither needs the
 *     network.
 *   - else `node <path of dist/cli/main.js>`, relative when it lies below.
 *
 * Where a person stands is the directory they ran it from: npm runs a script
 * (`npm run drill`) from the package's root wherever it was typed, and says
 * where that was in INIT_CWD. A file named in a printed command is made valid
 * from there too.
 */

/** The name of the CLI's bin, in package.json. */
const BIN = 'queue-drill';

/** What the choice depends on: where the person stands, the PATH they have, and the CLI's own file. */
export interface InvocationContext {
  /** The directory the person typed the command in. */
  userDir: string;
  /** Their PATH. */
  path: string;
  /** The JS file this CLI runs (dist/cli/main.js). */
  main: string;
}

/** The entry every printed command runs: the same relative path from src/kernel and dist/kernel. */
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Whether this process was started by an npm script or npx that runs queue-drill (so INIT_CWD is the person's directory). */
function startedByNpmForUs(env: NodeJS.ProcessEnv): boolean {
  const script = env.npm_lifecycle_script;
  return env.INIT_CWD !== undefined && script !== undefined && (/(^|[\s/])queue-drill(\s|$)/.test(script) || script.includes('dist/cli/main.js'));
}

/** The directory the person ran queue-drill from. */
export function userDirectory(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return startedByNpmForUs(env) ? resolve(env.INIT_CWD!) : cwd;
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Whether `path` is (a link to) the CLI's main file. */
function isMain(path: string, mainReal: string): boolean {
  return realOrNull(path) === mainReal;
}

/** The project npx works in from `dir`: the nearest folder up holding a package.json or a node_modules. */
function npxProject(dir: string): string | null {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json')) || existsSync(join(at, 'node_modules'))) return at;
    if (dirname(at) === at) return null;
  }
}

/** Whether `npx queue-drill` run in `project` starts this CLI: its own bin (a clone), or one it has installed. */
function npxFinds(project: string, mainReal: string): boolean {
  if (isMain(join(project, 'node_modules', '.bin', BIN), mainReal)) return true;
  try {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { name?: unknown; bin?: unknown };
    const bin = typeof pkg.bin === 'string' && pkg.name === BIN ? pkg.bin : (pkg.bin as Record<string, unknown> | undefined)?.[BIN];
    return typeof bin === 'string' && isMain(join(project, bin), mainReal);
  } catch {
    return false;
  }
}

/** Whether `queue-drill` on the PATH (npm's passing node_modules/.bin entries aside) is this CLI. */
function onPath(path: string, mainReal: string): boolean {
  return path
    .split(':')
    .filter((dir) => dir !== '' && !/node_modules[\\/]\.bin[\\/]?$/.test(dir))
    .some((dir) => isMain(join(dir, BIN), mainReal));
}

/** A path as typed from `from`: relative when it lies at or below it, else absolute. */
function pathFrom(from: string, path: string): string {
  const rel = relative(from, path);
  if (rel === '') return '.';
  return rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel) ? path : rel;
}

/** The words that start queue-drill for a person in `context` (see the comment at the top). */
export function commandPrefix(context: InvocationContext): string[] {
  const mainReal = realOrNull(context.main) ?? resolve(context.main);
  if (onPath(context.path, mainReal)) return [BIN];
  const project = npxProject(context.userDir);
  if (project !== null && npxFinds(project, mainReal)) return ['npx', BIN];
  return ['node', pathFrom(context.userDir, resolve(context.main))];
}

let cached: string[] | undefined;

/** The prefix for this process's person, worked out once. */
function prefixHere(): string[] {
  cached ??= commandPrefix({ userDir: userDirectory(), path: process.env.PATH ?? '', main: MAIN });
  return cached;
}

/** A word as a POSIX shell reads it back: as is when plain, else in single quotes (`process:python3 q.py` has a space). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._:/=,@+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** A queue-drill command a person can paste where they stand: the prefix, then each argument quoted for the shell. */
export function printedCommand(args: readonly string[]): string {
  return [...prefixHere(), ...args].map(shellWord).join(' ');
}

/** A file this process names by `file` (relative to its cwd), as the person types it from where they stand. */
export function pathForUser(file: string, userDir: string = userDirectory(), cwd: string = process.cwd()): string {
  if (isAbsolute(file)) return file;
  if (resolve(userDir) === resolve(cwd)) return file;
  return pathFrom(userDir, resolve(cwd, file));
}
