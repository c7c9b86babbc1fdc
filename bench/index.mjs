#!/usr/bin/env node
// `npm run bench`: every benchmark, each figure a ratio to a baseline measured in the same run
// (machines are noisy; ratios travel). Prints one markdown table, the one docs/benchmarks.md records.
// Benchmarks use dist/ (npm run bench builds first). BENCH_ONLY=startup,mock runs a subset.
import { pathToFileURL } from 'node:url';
import { formatTable } from './table.mjs';

// npm-test last: it rebuilds dist/.
const SUITES = ['startup', 'sdk', 'download', 'mock', 'build', 'imaging', 'reprocess', 'atlas-pages', 'npm-test'];
const only = process.env.BENCH_ONLY?.split(',');

const rows = [];
for (const name of SUITES) {
  if (only && !only.includes(name)) continue;
  const module = await import(pathToFileURL(new URL(`./${name}.mjs`, import.meta.url).pathname).href).catch((error) => {
    if (error.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  });
  if (!module) continue;
  process.stderr.write(`bench: ${name}…\n`);
  rows.push(...(await module.run()));
}
console.log(formatTable(rows));
// A reference row (met undefined) has no goal to miss.
if (rows.some((row) => row.met === false)) process.exitCode = 1;
