#!/usr/bin/env node
// Startup benchmark: wall time of `assetgen --help` (and --version) against `node -e 0`, the floor
// any Node CLI pays. Prints numbers; asserts nothing. Target: a ratio of at most 1.3.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/assetgen.js', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 20);

function median(args) {
  const times = [];
  for (let i = 0; i < runs + 2; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
    if (i >= 2) times.push(ms); // the first two warm the file cache
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const baseline = median(['-e', '0']);
const rows = [
  ['node -e 0', baseline],
  ['assetgen --help', median([bin, '--help'])],
  ['assetgen --version', median([bin, '--version'])],
];
console.log(`median of ${runs} runs`);
for (const [name, ms] of rows) {
  console.log(`${name.padEnd(20)} ${ms.toFixed(1).padStart(7)} ms   ratio ${(ms / baseline).toFixed(2)}`);
}
