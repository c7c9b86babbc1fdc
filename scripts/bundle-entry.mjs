#!/usr/bin/env node
// Rebuilds dist/program.cjs (tsc's output) as one file: the command table, its option parsers and
// help examples, and commander. The entry (dist/cli.cjs) stays tiny, so `--version` compiles
// nothing more; everything else requires this one file. Start-up is most of the time of `--help`, and each module Node resolves and reads on
// the way costs some of it, commander's six files included. Commands stay separate files, loaded
// only when they run, and other packages resolve from node_modules as usual.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/program.cts'],
  outfile: 'dist/program.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.18',
  external: ['@inquirer/*', 'chalk', 'conf', 'eventsource-parser', 'msw', 'ora', 'undici'],
  logLevel: 'warning',
  minifyWhitespace: true,
  minifySyntax: true,
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
