#!/usr/bin/env node
// `npm run typecheck-lint`: the type check and lint over ONE TypeScript program. Run apart
// (`npm run typecheck`, `npm run lint`), typescript-eslint's typed rules build a program of their
// own beside tsc's and type-check src/ a second time (docs/benchmarks.md, "npm test wall time":
// together ~50 s of CPU cold, this ~30 s). Here tsc's program, once checked, is handed to ESLint
// (`parserOptions.programs`), whose typed rules then read types the check already worked out.
// The checks are the same: tsconfig.json's diagnostics, then eslint.config.js over the same files
// as `eslint .` (src/ only: Biome lints the rest, in `npm run biome-check`). Prints tsc's errors
// and ESLint's report; exits 1 when either finds anything.
// package.json runs it with --single-threaded-gc: in `npm test` vitest's workers keep both cores
// busy, and V8's parallel GC helpers only contend with them (vitest.config.ts says the same).
import path from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = path.join(ROOT, 'tsconfig.json');
// The same incremental file as `npm run typecheck`: warm runs re-check only what changed.
const BUILD_INFO = path.join(ROOT, 'node_modules/.cache/assetgen/typecheck.tsbuildinfo');

const program = typeScriptProgram();
const diagnostics = ts.getPreEmitDiagnostics(program.getProgram());
// Writes the incremental file only (noEmit): the next run starts from it.
program.emit();
if (diagnostics.length > 0) {
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
  const format = process.stdout.isTTY || process.env.FORCE_COLOR ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(`${format(diagnostics, host)}\nFound ${diagnostics.length} type error(s).\n`);
}

const eslint = new ESLint({
  cwd: ROOT,
  // The typed rules' files (eslint.config.js: src/) read tsc's program instead of making their own.
  overrideConfig: [
    {
      files: ['src/**/*.ts', 'src/**/*.cts'],
      languageOptions: { parserOptions: { projectService: false, programs: [program.getProgram()] } },
    },
  ],
});
const results = await eslint.lintFiles(['.']);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report) process.stdout.write(report);
const lintProblems = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);

if (diagnostics.length > 0 || lintProblems > 0) process.exitCode = 1;

function typeScriptProgram() {
  const read = ts.getParsedCommandLineOfConfigFile(
    CONFIG,
    { noEmit: true, incremental: true, tsBuildInfoFile: BUILD_INFO },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => fail(diagnostic) },
  );
  if (!read) fail();
  if (read.errors.length > 0) fail(...read.errors);
  return ts.createIncrementalProgram({ rootNames: read.fileNames, options: read.options, projectReferences: read.projectReferences });
}

function fail(...diagnostics) {
  process.stderr.write(
    ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (n) => n, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }),
  );
  process.exit(2);
}
