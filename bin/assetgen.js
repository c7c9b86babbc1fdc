#!/usr/bin/env node
// Tiny shim: the compiled CLI lives in dist/ (built by `npm run build`, run by `prepare`).
import('../dist/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write('assetgen: dist/ is missing; run `npm install` (or `npm run build`) in the assetgen checkout.\n');
    process.exit(1);
  }
  throw error;
});
