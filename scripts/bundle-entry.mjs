#!/usr/bin/env node
// Rebuilds two of scripts/build.mjs's per-file outputs as bundles, for start-up time (each module Node resolves and reads
// costs some of it), and renders every help screen into dist/help-screens.json (scripts/help-screens.mjs).
// - dist/program.cjs: the command table, its option parsers and help examples, and commander. The
//   entry (dist/cli.cjs) stays tiny, so `--version` compiles nothing more. Commands stay separate
//   files, loaded only when they run, and other packages resolve from node_modules as usual.
// - dist/mcp/sdk.js: the MCP SDK and zod (src/mcp/sdk.ts), ~350 files as one, for `assetgen mcp`.
// - dist/vendor/yaml.js: the yaml package, 73 CommonJS files Node would resolve and compile one by
//   one on every command that reads a manifest (~80 ms of CPU of `assetgen init`'s ~300), as one ES
//   module; the compiled files import it in place of `yaml` (the package stays a dependency: its
//   types are the source's).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
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

// The yaml package as one module: its public names re-exported (esbuild turns yaml's CommonJS into
// ES bindings), with a `require` for the two built-ins it loads (buffer, process).
const yamlNames = Object.keys(createRequire(import.meta.url)('yaml'));
await build({
  ...common,
  stdin: { contents: `export { ${yamlNames.join(', ')} } from 'yaml';`, resolveDir: process.cwd(), sourcefile: 'yaml-entry.js' },
  outfile: 'dist/vendor/yaml.js',
  format: 'esm',
  banner: { js: "import { createRequire as vendorRequire } from 'node:module'; const require = vendorRequire(import.meta.url);" },
});
pointImportsAt('yaml', 'dist/vendor/yaml.js');

/**
 * Rewrites every compiled file's `from "<name>"` to the bundle's relative path. Fails the build when
 * none is found or one is left (esbuild's output changed form), rather than shipping either copy silently.
 */
function pointImportsAt(name, bundle) {
  const pattern = new RegExp(`(from |import\\()"${name}"`, 'g');
  let rewritten = 0;
  for (const file of fs.readdirSync('dist', { recursive: true })) {
    const full = path.join('dist', file);
    if (!full.endsWith('.js') || full === path.normalize(bundle)) continue;
    const text = fs.readFileSync(full, 'utf8');
    if (!text.includes(`"${name}"`)) continue;
    const relative = path.relative(path.dirname(full), bundle).split(path.sep).join('/');
    const next = text.replace(pattern, (_, lead) => `${lead}"${relative.startsWith('.') ? relative : `./${relative}`}"`);
    if (next.includes(`from "${name}"`) || next.includes(`import("${name}")`))
      throw new Error(`${full}: an import of ${name} left as it was`);
    fs.writeFileSync(full, next);
    rewritten++;
  }
  if (rewritten === 0) throw new Error(`no compiled file imports ${name}: scripts/bundle-entry.mjs expects some`);
}
