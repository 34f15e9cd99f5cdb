#!/usr/bin/env node
// The house rules a formatter and a linter cannot see, checked over src/:
//   - layers: each top folder of src/ imports only the folders it may depend on
//     (low layers never import higher ones), and no two folders import each other
//     through any chain (no cycles between folders);
//   - size: no function longer than MAX_FUNCTION_LINES lines, no line longer than MAX_LINE.
//   - docs: the layer table in docs/contributing.md is the one this map generates.
// Usage: node scripts/check-structure.mjs [--root DIR] [--longest N] [--write-docs]
// Exit 0 when the rules hold, 1 with one line per breach when not.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const MAX_LINE = 160;

// Which top folders of src/ each may import (itself always). The order reads bottom-up.
export const LAYERS = {
  kernel: [],
  port: ['kernel'],
  faults: ['kernel'],
  world: ['kernel'],
  harness: ['kernel', 'faults'],
  saga: ['kernel', 'port', 'faults', 'world'],
  adapters: ['kernel', 'port', 'saga'],
  reference: ['kernel', 'port', 'saga', 'adapters'],
  variants: ['kernel', 'port', 'saga', 'reference'],
  queues: ['kernel', 'port', 'saga', 'adapters', 'reference', 'variants'],
  contract: ['kernel', 'port', 'adapters', 'queues'],
  worker: ['kernel', 'port', 'saga', 'faults', 'world'],
  producer: ['kernel', 'port', 'saga', 'faults'],
  coordinator: ['kernel', 'port', 'saga', 'faults', 'world'],
  observe: ['kernel', 'port', 'world'],
  report: ['kernel', 'faults'],
  scenarios: ['kernel', 'port', 'saga', 'faults', 'world', 'queues', 'report'],
  // The judge sees a drill's record and nothing of how it was made: no drill, harness, adapter, variant or observe.
  judge: ['kernel', 'port', 'saga', 'faults', 'world', 'report', 'scenarios'],
  drill: ['kernel', 'port', 'saga', 'faults', 'world', 'harness', 'queues', 'observe', 'report', 'scenarios', 'judge'],
  explore: ['kernel', 'faults', 'world', 'saga', 'report', 'scenarios', 'judge', 'drill'],
  selftest: ['kernel', 'queues', 'report', 'scenarios', 'judge', 'drill', 'explore'],
  compare: ['kernel', 'port', 'queues', 'report', 'scenarios', 'drill'],
  demo: ['kernel', 'port', 'harness', 'queues', 'worker'],
  // The benchmark suite (npm run bench) measures everything below it and is imported by nothing.
  bench: ['kernel', 'port', 'faults', 'harness', 'adapters', 'reference', 'queues', 'report', 'scenarios', 'drill', 'explore'],
  api: [],
  cli: [],
};
// Folders only a few may import, whatever their layer lists say: the reference
// design is reached by its stores, the variants built on it and the registry;
// a broken variant only through the registry (the self-test names it there).
export const ONLY_IMPORTED_BY = {
  reference: ['variants', 'queues', 'bench'],
  variants: ['queues'],
};

// Folders that must never import others, whatever a later edit of LAYERS allows: the judge
// sees a drill's record and nothing of how it was made (no runner, no process, no queue);
// a drill's processes (the roles) are handed their queue as an object, resolved once by
// their command line, and know no queue by name: no registry, no reference, no variant, no adapter.
const NO_QUEUE_BY_NAME = ['queues', 'adapters', 'reference', 'variants'];
export const NEVER_IMPORTS = {
  judge: ['drill', 'harness', 'adapters', 'reference', 'variants', 'queues', 'observe'],
  worker: NO_QUEUE_BY_NAME,
  producer: NO_QUEUE_BY_NAME,
  coordinator: NO_QUEUE_BY_NAME,
};

// What each folder holds: the layer table of docs/contributing.md is generated from this and LAYERS.
export const HOLDS = {
  kernel:
    'what every layer shares: clock, seeded random, canonical and Python-compatible JSON, the idempotency key, redaction, ' +
    'error classes and job error kinds, the logger, releasers, the shared vocabulary (`vocabulary.ts`)',
  port:
    'the contract between the drill and any queue (`adapter.ts`, `snapshot.ts`, `delivery.ts`, `checkpoint.ts`) and the rules every ' +
    'queue is held to: the state machine (`states.ts`), the retry delay, wait-for-work, the default release of an expired lease',
  faults: 'the named fault points (`points.ts`), the fault actions (`actions/`, one a file), the plan, the failpoint and its controller',
  world: 'the world service: HTTP server, `routes/`, `ledger/`, `systems/`, its faults, reconciliation, the client workers use',
  harness: 'child processes (`supervisor.ts`), waiting on conditions with a deadline (`wait-for.ts`), the world process',
  saga: 'plans and their policy, running a plan step by step, the transaction log, reconciliation, compensation, approval, the recovery matrix (`recovery.ts`)',
  adapters:
    'the real queues: `bullmq/`, `pg-boss/`, `graphile-worker/`, `process/` (the process protocol), `pg/` (shared PostgreSQL plumbing), ' +
    '`saga-file/` (a saga log beside a queue that cannot share its transaction), `leftovers/`',
  reference:
    "the reference design over its `LeaseStore`: its worker loop, its rows in the port's words; `sqlite/` and `postgres/` (one SQL operation a file)",
  variants: 'the broken variants, one folder each, and their list (`list.ts`: what each breaks and its one mutation)',
  queues: 'the registry: every queue `--queue` can name, resolved from its name',
  contract: "the adapter contract's checks (`checks/`, one a file), the racing threads, the process protocol's checks",
  worker: 'the worker process of a drill',
  producer: 'the producer process of a drill',
  coordinator: 'the coordinator process: sweeps, reconciliation of unknown outcomes, approvals',
  observe: "the `status` and `history` commands' reading of a queue",
  report: 'the report schema, verdicts, and its views (`views/`, one a file)',
  scenarios: '`scenarios.yaml` to a resolved scenario: its schema, loading (with the line of each problem), the plan library, resolving',
  judge:
    "a drill's record (`drill-record.ts`) and its evidence (`evidence.ts`) to verdicts: the invariants (`invariants/`, one a file), " +
    'what must be judged, starvation, the job reports',
  drill:
    'running a resolved scenario to a drill record: the processes (`runner/`), gathering the evidence, ' +
    'a scenario judged (`run-judged.ts`), every scenario of a file (`run-drill.ts`)',
  explore: 'generated fault schedules, the cover their first runs walk, shrinking, the exhaustive matrix',
  selftest: 'every queue against the drills, each broken variant caught by what it breaks',
  compare: 'the same drill against several queues, one matrix',
  demo: 'the short demo',
  bench: '`npm run bench`: the benchmark families, their schema, tables and charts',
  api: "the library: the package's entry point, wrapping what `run`, `compare` and the scenarios' loading do",
  cli: 'the command line: one command a file in `commands/`, exit codes, progress output',
};

const DOCS = 'docs/contributing.md';
const DOCS_START =
  '<!-- layers:start: generated by `node scripts/check-structure.mjs --write-docs` from LAYERS, ONLY_IMPORTED_BY, NEVER_IMPORTS and HOLDS -->';
const DOCS_END = '<!-- layers:end -->';

/** The layer table of docs/contributing.md, bottom up, with what each folder may import and who alone may import it. */
export function layerTable(layers = LAYERS, onlyImportedBy = ONLY_IMPORTED_BY, holds = HOLDS, neverImports = NEVER_IMPORTS) {
  const rows = Object.keys(layers).map((folder) => {
    const may = layers[folder].length === 0 ? 'nothing' : layers[folder].map((f) => `\`${f}\``).join(', ');
    const only = onlyImportedBy[folder] ? ` Imported only by ${onlyImportedBy[folder].map((f) => `\`${f}\``).join(', ')}.` : '';
    const never = neverImports[folder] ? ` Never imports ${neverImports[folder].map((f) => `\`${f}\``).join(', ')}.` : '';
    return `| \`${folder}\` | ${may} | ${holds[folder] ?? ''}.${only}${never} |`;
  });
  return ['| folder | may import | what it holds |', '|---|---|---|', ...rows].join('\n');
}

/** The docs with the generated table in place (a breach when the markers are missing). */
function docsWithTable(text) {
  const start = text.indexOf(DOCS_START);
  const end = text.indexOf(DOCS_END);
  if (start < 0 || end < start) return undefined;
  return `${text.slice(0, start + DOCS_START.length)}\n${layerTable()}\n${text.slice(end)}`;
}

// The top, side by side: the command line and the library (src/api: the package's entry point) may import anything below
// them (but the bench, which stands beside them and is imported by nothing, and the folders behind a door below).
const everyDoorOpen = (top) =>
  Object.keys(LAYERS).filter((f) => !['api', 'cli', 'bench'].includes(f) && (ONLY_IMPORTED_BY[f]?.includes(top) ?? true));
LAYERS.api = everyDoorOpen('api');
LAYERS.cli = everyDoorOpen('cli');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function topFolder(srcDir, file) {
  const rel = relative(srcDir, file).split(sep);
  return rel.length > 1 ? rel[0] : '(root)';
}

/** Every relative module a file imports (static, type-only, dynamic, re-exports), resolved to a path. */
function importsOf(file, source) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((spec) => spec.startsWith('.')).map((spec) => resolve(dirname(file), spec));
}

/** Every function-like node with the lines it spans. */
function functionsOf(file, source) {
  const found = [];
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node)
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const name =
        node.name && ts.isIdentifier(node.name)
          ? node.name.text
          : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)
            ? node.parent.name.text
            : '(anonymous)';
      found.push({ file, name, start, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Folder cycles: each strongly connected set of more than one folder (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const connect = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        connect(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) connect(v);
  return found;
}

/** Checks a tree; returns the breaches (one line each) and every function with its length. */
export function checkStructure(root, layers = LAYERS, onlyImportedBy = ONLY_IMPORTED_BY, neverImports = NEVER_IMPORTS) {
  const srcDir = join(root, 'src');
  const breaches = [];
  const functions = [];
  const graph = new Map();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const from = topFolder(srcDir, file);
    const shown = relative(root, file);
    for (const target of importsOf(file, source)) {
      const to = topFolder(srcDir, target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from).add(to);
      const only = onlyImportedBy[to];
      if (only && !only.includes(from))
        breaches.push(`${shown} imports src/${to}/ (${relative(root, target)}): ${to} is imported only by ${only.join(', ')}`);
      if (neverImports[from]?.includes(to))
        breaches.push(`${shown} imports src/${to}/ (${relative(root, target)}): ${from} never imports ${neverImports[from].join(', ')}`);
      const allowed = layers[from];
      if (allowed === undefined) breaches.push(`${shown}: src/${from}/ is in no layer (add it to LAYERS in scripts/check-structure.mjs)`);
      else if (!allowed.includes(to))
        breaches.push(
          `${shown} imports src/${to}/ (${relative(root, target)}): ${from} may import only ${allowed.join(', ') || 'nothing outside itself'}`,
        );
    }
    text.split('\n').forEach((line, i) => {
      if (line.length > MAX_LINE) breaches.push(`${shown}:${i + 1}: line of ${line.length} characters (at most ${MAX_LINE})`);
    });
    for (const fn of functionsOf(shown, source)) {
      functions.push(fn);
      if (fn.lines > MAX_FUNCTION_LINES)
        breaches.push(`${shown}:${fn.start}: function ${fn.name} is ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
    }
  }
  for (const cycle of cycles(graph)) breaches.push(`folders import each other in a cycle: ${cycle.join(', ')}`);
  const docs = join(root, DOCS);
  if (layers === LAYERS && existsSync(docs)) {
    const text = readFileSync(docs, 'utf8');
    const wanted = docsWithTable(text);
    if (wanted === undefined) breaches.push(`${DOCS}: the layer table's markers are missing (${DOCS_START} ... ${DOCS_END})`);
    else if (wanted !== text)
      breaches.push(`${DOCS}: the layer table is not the one LAYERS generates (node scripts/check-structure.mjs --write-docs)`);
  }
  return { breaches: [...new Set(breaches)], functions: functions.sort((a, b) => b.lines - a.lines) };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const args = process.argv.slice(2);
  const root = args.includes('--root') ? args[args.indexOf('--root') + 1] : process.cwd();
  const longest = args.includes('--longest') ? Number(args[args.indexOf('--longest') + 1]) : 0;
  if (args.includes('--write-docs')) {
    const docs = join(root, DOCS);
    const wanted = docsWithTable(readFileSync(docs, 'utf8'));
    if (wanted === undefined) throw new Error(`${DOCS}: no layer table markers to write between`);
    writeFileSync(docs, wanted);
  }
  const { breaches, functions } = checkStructure(root);
  for (const fn of functions.slice(0, longest)) console.log(`${String(fn.lines).padStart(4)} lines  ${fn.file}:${fn.start} ${fn.name}`);
  for (const breach of breaches) console.error(breach);
  if (breaches.length > 0) {
    console.error(`${breaches.length} breach(es) of the house rules`);
    process.exitCode = 1;
  }
}
