#!/usr/bin/env node
// `npm run build`: dist/ from src/. The JavaScript is esbuild's, file by file (types stripped, each
// .ts an ES module, each .cts CommonJS; tsconfig's isolatedModules keeps every file compilable on
// its own): under a second where tsc's emit took seven, and it is the critical path of `npm test`.
// Then the two bundles and the help screens (scripts/bundle-entry.mjs), and the type declarations
// for the SDK's users (tsc, declarations only, unchecked: `npm run typecheck` checks).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { build } from 'esbuild';

/** Every source file under src/, by its extension. */
function sources(dir, extension) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

fs.rmSync('dist', { recursive: true, force: true });
const common = {
  outdir: 'dist',
  outbase: 'src',
  platform: 'node',
  target: 'node20.18',
  logLevel: 'warning',
  tsconfig: 'tsconfig.build.json',
};
await Promise.all([
  build({ ...common, entryPoints: sources('src', '.ts'), format: 'esm' }),
  build({ ...common, entryPoints: sources('src', '.cts'), format: 'cjs', outExtension: { '.js': '.cjs' } }),
]);

const bundled = spawnSync(process.execPath, ['scripts/bundle-entry.mjs'], { stdio: 'inherit' });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);

const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
const emitted = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--emitDeclarationOnly'], { stdio: 'inherit' });
if (emitted.status !== 0) process.exit(emitted.status ?? 1);
