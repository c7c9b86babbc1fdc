#!/usr/bin/env node
// Tiny shim (CommonJS, see bin/package.json, for a fast start): the compiled CLI lives in dist/,
// built by `npm run build` (in a clone), which `npm pack` and `npm publish` run as the prepack script:
// the published package carries dist/ and runs no install script.
try {
  require('../dist/cli.cjs');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.cjs')) {
    process.stderr.write('error: dist/ is missing; run `npm run build` in the assetgen checkout.\n'); // ui/labels.cts's label (dist/ is what is missing)
    process.exit(1);
  }
  throw error;
}
