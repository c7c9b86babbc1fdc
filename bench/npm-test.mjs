#!/usr/bin/env node
// The test loop: `npm test` (scripts/test.mjs: the JavaScript build, then vitest with the type
// check, lint and format check beside it) as a developer runs it, a fresh process each time, wall
// time from spawn to exit, median of BENCH_NPM_TEST_RUNS (default 3); each phase's own time beside
// it from the command's summary line. The caches of a working checkout (tsc's incremental file)
// are kept, as on a developer's machine; BENCH_NPM_TEST_COLD=1 removes them
// (node_modules/.cache/) before each run, as on a fresh CI checkout. Baseline: the 50 s goal.
// Last in `npm run bench`: it rebuilds dist/ (without the declarations).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Math.max(1, Number(process.env.BENCH_NPM_TEST_RUNS ?? 3));
const GOAL_S = 50;
const COLD = process.env.BENCH_NPM_TEST_COLD === '1';

function npmTest() {
  if (COLD) fs.rmSync(new URL('../node_modules/.cache/', import.meta.url), { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('npm', ['test', '--silent'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`npm test failed (exit ${code}):\n${output.slice(-4000)}`));
      const summary = output.trimEnd().split('\n').at(-1) ?? '';
      resolve({ seconds, summary });
    });
  });
}

export async function run() {
  const results = [];
  for (let i = 0; i < RUNS; i++) results.push(await npmTest());
  const sorted = [...results].sort((a, b) => a.seconds - b.seconds);
  const median = sorted[sorted.length >> 1];
  const all = results.map((result) => result.seconds.toFixed(1)).join(', ');
  return [
    {
      figure: `\`npm test\` wall time, ${COLD ? 'cold caches' : 'warm caches'} (median of ${RUNS}: ${all} s; phases of the median run: ${median.summary.replaceAll('|', '/')})`,
      measured: `${median.seconds.toFixed(1)} s`,
      baseline: `the goal, ${GOAL_S} s`,
      ratio: median.seconds / GOAL_S,
      goal: `≤ 1× (${GOAL_S} s)`,
      met: median.seconds <= GOAL_S,
    },
  ];
}

await runAlone(import.meta, run);
