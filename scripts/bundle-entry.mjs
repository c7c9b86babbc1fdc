#!/usr/bin/env node
// Rebuilds two of scripts/build.mjs's per-file outputs as bundles, for start-up time (each module Node resolves and reads
// costs some of it), and renders every help screen into dist/help-screens.json (scripts/help-screens.mjs).
// - dist/program.cjs: the command table, its option parsers and help examples, and commander. The
//   entry (dist/cli.cjs) stays tiny, so `--version` compiles nothing more. Commands stay separate
//   files, loaded only when they run, and other packages resolve from node_modules as usual.
// - dist/mcp/sdk.js: the MCP SDK and zod (src/mcp/sdk.ts), ~350 files as one, for `assetgen mcp`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { renderHelpScreens } from './help-screens.mjs';

const common = { bundle: true, platform: 'node', target: 'node20.18', logLevel: 'warning', minifyWhitespace: true, minifySyntax: true };

await build({
  ...common,
  entryPoints: ['src/program.cts'],
  outfile: 'dist/program.cjs',
  format: 'cjs',
  external: ['@inquirer/*', 'chalk', 'conf', 'eventsource-parser', 'msw', 'ora', 'undici'],
  plugins: [
    {
      name: 'lazy-imports-stay-external',
      setup(plugin) {
        // `import('./commands/x.js')` and the kit's executor load on use, from dist/ as compiled file by file.
        plugin.onResolve({ filter: /^\.\.?\// }, (args) =>
          args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
        );
      },
    },
  ],
});

// Every help screen, for the entry to print without loading commander or the table.
fs.writeFileSync('dist/help-screens.json', JSON.stringify(await renderHelpScreens(fs.realpathSync('dist/program.cjs'))));

/** A stand-in for zod's locales/index.js: each locale it names, loaded from zod's CommonJS build on first call. */
function lazyLocales(indexFile) {
  const names = [...fs.readFileSync(indexFile, 'utf8').matchAll(/export \{ default as (\w+) \}/g)].map((match) => match[1]);
  if (names.length < 10) throw new Error(`${indexFile}: an unexpected form (${names.length} locales found)`);
  const load = "createRequire(import.meta.url)('zod/v4/locales')";
  return [
    "import { createRequire } from 'node:module';",
    ...names.map((name) => `export const ${name} = (...args) => ${load}.${name}(...args);`),
  ].join('\n');
}

const lazy = (file) => path.join(path.dirname(fileURLToPath(import.meta.url)), 'lazy', file);
await build({
  ...common,
  entryPoints: ['src/mcp/sdk.ts'],
  outfile: 'dist/mcp/sdk.js',
  format: 'esm',
  minifyIdentifiers: true,
  plugins: [
    {
      name: 'load-on-first-use',
      setup(plugin) {
        // Same exports, loading the real module when first called (scripts/lazy/*.mjs).
        plugin.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, () => ({ path: lazy('ajv-provider.mjs') }));
        plugin.onResolve({ filter: /^zod-to-json-schema$/ }, () => ({ path: lazy('zod-to-json-schema.mjs') }));
        plugin.onResolve({ filter: /^zod\/v3$/ }, (args) =>
          /sdk[\\/]dist[\\/]esm[\\/]server[\\/]zod-compat\.js$/.test(args.importer) ? { path: lazy('zod-v3.mjs') } : undefined,
        );
        // `z.locales`: zod's messages in ~60 languages (assetgen keeps zod's default, English).
        plugin.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
          /zod[\\/]v4[\\/](classic[\\/]external|mini[\\/]external|core[\\/]index)\.js$/.test(args.importer)
            ? { path: path.join(path.dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'lazy-zod-locales' }
            : undefined,
        );
        plugin.onLoad({ filter: /.*/, namespace: 'lazy-zod-locales' }, (args) => ({ contents: lazyLocales(args.path) }));
      },
    },
  ],
});
