#!/usr/bin/env node
// Rebuilds two of tsc's outputs as bundles, for start-up time (each module Node resolves and reads
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
        // `import('./commands/x.js')` and the kit's executor load on use, from dist/ as compiled by tsc.
        plugin.onResolve({ filter: /^\.\.?\// }, (args) =>
          args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
        );
      },
    },
  ],
});

// Every help screen, for the entry to print without loading commander or the table.
fs.writeFileSync('dist/help-screens.json', JSON.stringify(await renderHelpScreens(fs.realpathSync('dist/program.cjs'))));

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
      },
    },
  ],
});
