#!/usr/bin/env node
// `npm run build`: dist/ from src/. The JavaScript is esbuild's, file by file (types stripped, each
// .ts an ES module, each .cts CommonJS; tsconfig's isolatedModules keeps every file compilable on
// its own): under a second where tsc's emit took seven, and it is the critical path of `npm test`.
// Then the two bundles and the help screens (scripts/bundle-entry.mjs), and the type declarations
// for the SDK's users (tsc, declarations only, unchecked: `npm run typecheck` checks). `npm test`
// builds with `--no-declarations` (npm run build:js): 2.5 s off its critical path, and no test
// reads them (the published surface is checked from src/index.ts; test/slow/packed-install.test.ts
// checks the packed package has them, as `npm pack` builds through the prepack script).
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

if (!process.argv.includes('--no-declarations')) {
  const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
  const emitted = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--emitDeclarationOnly'], {
    stdio: 'inherit',
  });
  if (emitted.status !== 0) process.exit(emitted.status ?? 1);
}
