// Builds dist/ only when what it is built from changed since the last build (`npm run drill`, `npm run demo`):
// a hash of the sources, the compiler's settings and the package, kept beside the build by `postbuild`
// (`node scripts/build-if-stale.mjs --stamp`). A missing or different stamp rebuilds; an equal one says so and goes on.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const STAMP = join(ROOT, 'dist', '.build-inputs');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/bundle-children.mjs'];

/** Every file under `path` (or the file itself), sorted. */
function filesOf(path) {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  try {
    return readdirSync(full, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
      .sort();
  } catch {
    return [path];
  }
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesOf))
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return hash.digest('hex');
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${inputsHash()}\n`);
} else {
  const built = existsSync(join(ROOT, 'dist', 'cli', 'main.js')) && existsSync(STAMP);
  if (built && readFileSync(STAMP, 'utf8').trim() === inputsHash()) {
    process.stderr.write('dist/ is built from these sources already: not building again\n');
  } else {
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
}
