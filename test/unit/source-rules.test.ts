// The rules src/ keeps, checked on its syntax trees (one file: the TypeScript parser is loaded and
// warmed once, where three files on three workers paid ~1.5 s of CPU each):
// - writes: every file operation goes through the confinement module;
// - import circles: none;
// - the split functions: each under 80 lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { importCircles, importGraph } from '../support/source-graph.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

// Contract 1 of issue 26, as a check anyone can run: every file assetgen writes, deletes or opens
// goes through the confinement module (src/files/confine.ts and its parts atomic.ts and
// temp-files.ts): real paths inside the root, never through a link, regular files only. This scan
// reads every source file of src/ with the TypeScript parser and lists each call of a node:fs
// function that creates, changes, removes or opens a file (and of the atomic writer) made anywhere
// else. The allow-list below names the few that are not project paths, each with why: writes to
// the per-user config and state folders and to agents' config folders (the installer), the SDK's
// download to a path its caller names, and assetgen's own package files read. Every other read of
// a file (config included) goes through confine.ts's regular-file helper: a FIFO never blocks.
/** The confinement module: the only files that call these functions on paths of their own. */
const CONFINEMENT_MODULE = ['files/confine.ts', 'files/atomic.ts', 'files/rename.ts', 'files/temp-files.ts'];

/** node:fs functions that create, change, remove or open a file (an open may block on a FIFO). */
const FS_OPERATIONS = new Set([
  'open',
  'openSync',
  'openAsBlob',
  'readFile',
  'readFileSync',
  'createReadStream',
  'createWriteStream',
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'rename',
  'renameSync',
  'rm',
  'rmSync',
  'rmdir',
  'rmdirSync',
  'unlink',
  'unlinkSync',
  'mkdir',
  'mkdirSync',
  'mkdtemp',
  'mkdtempSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'cpSync',
  'link',
  'linkSync',
  'symlink',
  'symlinkSync',
  'truncate',
  'truncateSync',
  'chmod',
  'chmodSync',
  'lchmod',
  'chown',
  'chownSync',
  'lchown',
  'utimes',
  'utimesSync',
  'lutimes',
]);

/**
 * The confinement module's own unchecked writers (the atomic writer, and rename.ts's rename retried
 * on Windows): called from outside it, each is a raw write.
 */
const ATOMIC_WRITERS = new Set(['writeFileAtomic', 'writeFileAtomicSync', 'renameRetrying', 'renameRetryingSync']);

const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

/**
 * Calls that are allowed outside the module, by file and function: none of them is a path in a
 * project (or in a folder an `-o` names), and each has a reason.
 */
const ALLOWED: Record<string, { calls: string[]; why: string }> = {
  'config/credential-store.ts': {
    calls: ['mkdirSync', 'rmSync', 'chmodSync'],
    why: "the per-user config folder (ASSETGEN_CONFIG_DIR or the platform's), named by the user's environment, never by a project; the credentials file itself is written by `conf` (atomic, mode 0600), these make its 0700 folder and its lock folder",
  },
  'config/agents-cache.ts': {
    calls: ['mkdirSync', 'writeFileAtomicSync'],
    why: 'the per-user cache of agent lists in the config folder (a cache: a failure to write it is ignored)',
  },
  'config/journal.ts': {
    calls: ['mkdirSync'],
    why: "makes the per-user state folder (ASSETGEN_STATE_DIR or the platform's) of the job journal, not a project folder; the journal itself is appended through confine.ts appendRegularFileSync",
  },
  'config/learned-prices.ts': {
    calls: ['mkdirSync'],
    why: "makes the per-user state folder (ASSETGEN_STATE_DIR or the platform's) of the learned prices, not a project folder; prices.json itself is written through confine.ts writeFileInsideSync",
  },
  'config/plan-cache-key.ts': {
    calls: ['mkdirSync'],
    why: "makes the per-user state folder (ASSETGEN_STATE_DIR or the platform's) of the plan cache's key, not a project folder; the key itself is written through confine.ts writeFileInsideSync",
  },
  'installer/install.ts': {
    calls: ['mkdirSync', 'writeFileAtomicSync'],
    why: "the skill installer writes into agents' config folders with its own confinement: installer/files.ts assertNoLinks refuses any link below the skills folder, install.ts refuses a project-scope skills folder that leads outside the project; the atomic write creates its temp file exclusively (never through a link) and renames it over",
  },
  'installer/mcp-register.ts': {
    calls: ['mkdirSync', 'rmSync', 'rmdirSync', 'writeFileAtomicSync', 'chmodSync'],
    why: "agents' MCP configuration files (~/.claude.json, a project's .mcp.json, …), checked by installer/files.ts assertNoLinks before any write; removes only files and folders the installer's manifest says it made",
  },
  'installer/uninstall.ts': {
    calls: ['rmdirSync'],
    why: 'removes an empty folder the installer recorded making (files themselves go through removeInside)',
  },
  'installer/manifest.ts': {
    calls: ['mkdirSync', 'writeFileAtomicSync'],
    why: "the installer's own record in the per-user config folder",
  },
  'installer/render.ts': {
    calls: ['rmSync', 'mkdirSync', 'writeFileSync', 'readFileSync'],
    why: "writeShippedSkill regenerates the package's own skills/assetgen from its templates (`npm run render-skill`, a development step); the templates are read from the package",
  },
  'client/download.ts': {
    calls: ['mkdir', 'writeFile', 'open', 'renameRetrying', 'rm'],
    why: "the SDK's client.download(url, file) writes where its caller says (an SDK user's own path); assetgen's own saves (cli/save.ts) pass only a fresh temp name (files/temp-files.ts tempFor) in a folder the rule returned, with inPlace: created exclusively (O_EXCL never follows a link), then put in place by confine.ts moveIntoPlace",
  },
  'package-info.cts': {
    calls: ['readFileSync'],
    why: "assetgen's own package.json",
  },
  'cli/help-screens.cts': {
    calls: ['readFileSync'],
    why: "the package's own help screens file",
  },
};

interface Call {
  file: string;
  line: number;
  name: string;
}

/** Every call in `source` of a node:fs file operation (or of the atomic writer), by the name it calls. */
export function fileOperations(file: string, source: string): Call[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const namespaces = new Set<string>(); // fs, fs.promises and the like, by their local names
  const functions = new Map<string, string>(); // a named import's local name → the function
  for (const statement of tree.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = statement.moduleSpecifier.text;
    const clause = statement.importClause;
    if (!clause) continue;
    const isFs = FS_MODULES.has(from);
    const isAtomic = /(^|\/)(atomic|rename)\.js$/.test(from);
    if (!isFs && !isAtomic) continue;
    if (isFs && clause.name) namespaces.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && isFs) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text;
        if (isFs && imported === 'promises') namespaces.add(element.name.text);
        else if ((isFs && FS_OPERATIONS.has(imported)) || (isAtomic && ATOMIC_WRITERS.has(imported)))
          functions.set(element.name.text, imported);
      }
  }
  const calls: Call[] = [];
  const line = (node: ts.Node): number => tree.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  /** `fs`, `fs.promises`, or a local name of either. */
  const isNamespace = (node: ts.Expression): boolean =>
    (ts.isIdentifier(node) && namespaces.has(node.text)) ||
    (ts.isPropertyAccessExpression(node) && node.name.text === 'promises' && isNamespace(node.expression));
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && functions.has(callee.text)) calls.push({ file, line: line(node), name: functions.get(callee.text)! });
      if (ts.isPropertyAccessExpression(callee) && FS_OPERATIONS.has(callee.name.text) && isNamespace(callee.expression))
        calls.push({ file, line: line(node), name: callee.name.text });
    }
    // Taking the functions out of fs (`const { writeFile } = fs.promises`) would hide them from the scan.
    if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer && isNamespace(node.initializer))
      calls.push({ file, line: line(node), name: 'destructured fs' });
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return calls;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.c?ts$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

let scanned: Call[] | undefined;
/** The calls of every file of src/ (parsed once for the file's tests). */
const allCalls = (): Call[] =>
  (scanned ??= sourceFiles(SRC).flatMap((file) => fileOperations(file, fs.readFileSync(path.join(SRC, file), 'utf8'))));

describe('every file operation in src/ goes through the confinement module', () => {
  it('finds none outside it but the allow-list (config, installer, the SDK download, package files)', () => {
    const outside = allCalls().filter((call) => !CONFINEMENT_MODULE.includes(call.file));
    const unexplained = outside.filter((call) => !ALLOWED[call.file]?.calls.includes(call.name));
    expect(unexplained.map((call) => `src/${call.file}:${call.line} ${call.name}`)).toEqual([]);
  });

  it('the allow-list lists only calls that are there (a stale entry hides a future one)', () => {
    const calls = allCalls();
    const stale = Object.entries(ALLOWED).flatMap(([file, entry]) =>
      entry.calls.filter((name) => !calls.some((call) => call.file === file && call.name === name)).map((name) => `${file} ${name}`),
    );
    expect(stale).toEqual([]);
    for (const entry of Object.values(ALLOWED)) expect(entry.why.length).toBeGreaterThan(20);
  });

  it('the scan sees every form a call can take (a scan that saw none would pass)', () => {
    const source = [
      "import fs, { promises as fsp, openSync as open } from 'node:fs';",
      "import * as fsx from 'fs';",
      "import { writeFile } from 'node:fs/promises';",
      "import { writeFileAtomic } from '../files/atomic.js';",
      "await fs.promises.open(journal, 'a');",
      'fs.writeFileSync(draft, text);',
      'await fsp.rename(a, b);',
      "open(file, 'r');",
      'fsx.rmSync(file);',
      'await writeFile(file, text);',
      'await writeFileAtomic(file, text);',
      'const { unlinkSync } = fs;',
      'fs.statSync(file); fs.existsSync(file); other.open(file);',
    ].join('\n');
    expect(fileOperations('sample.ts', source).map((call) => `${call.line} ${call.name}`)).toEqual([
      '5 open',
      '6 writeFileSync',
      '7 rename',
      '8 openSync',
      '9 rmSync',
      '10 writeFile',
      '11 writeFileAtomic',
      '12 destructured fs',
    ]);
    // And on the real tree: the confinement module itself is where the calls are.
    expect(allCalls().filter((call) => call.file === 'files/confine.ts').length).toBeGreaterThan(5);
  });
});

// src/ has no import circle, type-only and lazy imports included: records (types shared by several
// logic files) live in files of their own (src/pipeline/records.ts, src/commands/project/records.ts,
// src/client/transport-records.ts), which the logic files import instead of each other. A circle
// makes load order matter and couples files that should not know each other.
describe('import circles', () => {
  it('src/ has none (import type, export … from, import() and require() included)', () => {
    const graph = importGraph(SRC);
    // The graph is real: every source file is in it, with the imports the compiler sees.
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('program.cts')).toContain('commands/completion.ts');
    const circles = importCircles(graph).map(
      (circle) => `${circle.files.length} files, e.g. ${circle.loop.join(' → ')}; imports inside it:\n    ${circle.imports.join('\n    ')}`,
    );
    expect(circles, `import circles in src/:\n  ${circles.join('\n  ')}`).toEqual([]);
  });

  describe('the check itself', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });

    const tree = (files: Record<string, string>): string => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-import-graph-'));
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
      return dir;
    };

    it('finds circles made by import type, export from, a lazy import() and require()', () => {
      const root = tree({
        'a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
        'b.ts': "export { a } from './c.js';\nexport type B = string;\n",
        'c.ts': "export const a = async () => (await import('./a.js'));\n",
        'd.cts': "const e = require('./sub/e.cjs');\n",
        'sub/e.cts': "import type { D } from '../d.cjs';\n",
        'f.ts': "import { g } from './f.js';\nexport const g = 1;\n",
        'leaf.ts': "import { a } from './c.js';\nimport { z } from 'some-package';\n",
      });
      const circles = importCircles(importGraph(root));
      expect(circles.map((circle) => circle.files)).toEqual(
        expect.arrayContaining([['a.ts', 'b.ts', 'c.ts'], ['d.cts', 'sub/e.cts'], ['f.ts']]),
      );
      expect(circles).toHaveLength(3);
      const abc = circles.find((circle) => circle.files.includes('a.ts'))!;
      expect(abc.loop).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
      expect(abc.imports).toEqual(['a.ts → b.ts', 'b.ts → c.ts', 'c.ts → a.ts']);
    });

    it('refuses a relative import it cannot resolve rather than leave its edge out', () => {
      const root = tree({ 'a.ts': "import { b } from './missing.js';\n" });
      expect(() => importGraph(root)).toThrow(/a\.ts: cannot resolve "\.\/missing\.js"/);
    });
  });
});

// The densest functions of the tree, split into named steps (issue 26): each stays under 80 lines,
// measured on the TypeScript syntax tree from its declaration (doc comment excluded) to its
// closing brace. A function listed here that is renamed or moved fails too: update the list.
const MAX_LINES = 80;

/** file (under src/) → the functions in it that must stay under MAX_LINES. */
const WATCHED: Record<string, string[]> = {
  'client/download.ts': ['download'],
  'commands/project/pool.ts': ['runPlan'],
  'commands/project/asset.ts': ['produce'],
  'pipeline/validate.ts': ['validateTree'],
};

/** The lines of each function named `name` in `file`: declarations, const arrows and methods alike. */
function functionLines(file: string, name: string): number[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lines = (node: ts.Node): number =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const found: number[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name?.getText(source) === name && node.body)
      found.push(lines(node));
    else if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(source) === name &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      found.push(lines(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the split functions', () => {
  for (const [file, names] of Object.entries(WATCHED))
    for (const name of names)
      it(`${name} (src/${file}) is under ${MAX_LINES} lines`, () => {
        const sizes = functionLines(path.join(SRC, file), name);
        expect(sizes, `no function ${name} in src/${file}`).not.toEqual([]);
        for (const size of sizes) expect(size, `${name} in src/${file} is ${size} lines`).toBeLessThan(MAX_LINES);
      });

  it('measures a function, a const arrow and a method from their declaration to their closing brace', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-function-size-'));
    try {
      const file = path.join(dir, 'sample.ts');
      fs.writeFileSync(
        file,
        [
          '/** Not counted: the doc comment. */',
          'export async function step(a: number): Promise<number> {',
          '  const b = a + 1;',
          '  return b;',
          '}',
          'const arrow = (a: number): number =>',
          '  a * 2;',
          'class Pool {',
          '  method(): void {}',
          '}',
          '',
        ].join('\n'),
      );
      expect(functionLines(file, 'step')).toEqual([4]);
      expect(functionLines(file, 'arrow')).toEqual([2]);
      expect(functionLines(file, 'method')).toEqual([1]);
      expect(functionLines(file, 'missing')).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
