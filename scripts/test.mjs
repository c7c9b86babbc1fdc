#!/usr/bin/env node
// `npm test`: every phase of the test command, at once where it can be. Only vitest needs the build
// (its end-to-end tests run dist/): `build:js`, the JavaScript only (scripts/build.mjs, ~1 s; it
// replaces dist/ with one without the .d.ts files `npm run build` adds). The type check and lint,
// one phase over one TypeScript program (`oxlint --type-aware --type-check`, .oxlintrc.json), start
// beside it. Biome's check (the format, and the lint of everything outside src/) starts
// with vitest. Both run at a lower CPU priority (nice 10): vitest is the critical path, and these
// two (~15 s of CPU in all since Oxlint) still end long before it in the cores it leaves idle while
// it waits on spawned CLIs and sockets (docs/benchmarks.md, "Session 29"; when the lint took ~45 s
// of CPU, a lower priority made it starve and end last). vitest prints live;
// every other phase prints one block once vitest is done. Fails when any phase fails. Arguments go
// to vitest (`npm test -- test/unit`).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import process from 'node:process';

/** The phases, each an npm script of package.json (defined there, once). */
const BUILD = 'build:js';
// The type check and lint share one TypeScript program (package.json's typecheck-lint).
const BESIDE_BUILD = ['typecheck-lint'];
const BESIDE_TESTS = ['biome-check'];
const TESTS = 'test:vitest';

const early = BESIDE_BUILD.map((script) => npmRun(script, { capture: true, lower: true }));
const build = await npmRun(BUILD, { capture: true });
process.stdout.write(`── build ${build.code === 0 ? '✓' : '✗'} ${build.seconds.toFixed(1)} s\n`);
const late = BESIDE_TESTS.map((script) => npmRun(script, { capture: true, lower: true }));
const tests = build.code === 0 ? await npmRun(TESTS, { args: process.argv.slice(2) }) : undefined;
const results = [build, ...(await Promise.all([...early, ...late])), ...(tests ? [tests] : [])];
results.filter((result) => result.script !== TESTS).forEach(printBlock);

const summary = results.map((result) => `${result.script} ${result.code === 0 ? '✓' : '✗'} ${result.seconds.toFixed(1)} s`);
if (!tests) summary.push(`${TESTS} not run: the build failed`);
process.stdout.write(`\n${summary.join(' · ')}\n`);
const failed = results.filter((result) => result.code !== 0).map((result) => result.script);
if (failed.length > 0 || !tests) {
  process.stderr.write(`npm test failed: ${[...failed, ...(tests ? [] : [TESTS])].join(', ')}\n`);
  process.exitCode = 1;
}

/**
 * `npm run <script>` through the npm running this file. Captured output is kept for printBlock;
 * otherwise the phase prints straight to this terminal. `lower`: at nice 10 (the processes it
 * starts inherit it; os.setPriority maps it to a priority class on Windows).
 */
function npmRun(script, { args = [], capture = false, lower = false }) {
  const npmCli = process.env.npm_execpath;
  const [command, prefix] = npmCli ? [process.execPath, [npmCli]] : ['npm', []];
  const started = performance.now();
  const child = spawn(command, [...prefix, 'run', '--silent', script, ...(args.length > 0 ? ['--', ...args] : [])], {
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    // Colours in captured output when the test command itself is on a terminal.
    env: capture && process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
    shell: !npmCli && process.platform === 'win32',
  });
  if (lower && child.pid) {
    try {
      os.setPriority(child.pid, 10);
    } catch {
      // Gone already, or not allowed here: it runs at the same priority, which only costs time.
    }
  }
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    const done = (code, text = '') =>
      resolve({ script, code, output: Buffer.concat(output).toString('utf8') + text, seconds: (performance.now() - started) / 1000 });
    child.on('error', (error) => done(1, `${error.message}\n`));
    child.on('close', (code, signal) => done(code ?? 1, signal ? `killed by ${signal}\n` : ''));
  });
}

/** A captured phase's output under its name; nothing for one that passed silently. */
function printBlock(result) {
  const text = result.output.trimEnd();
  if (result.code === 0 && !text) return;
  process.stdout.write(`\n── ${result.script} ${result.code === 0 ? '✓' : `✗ (exit ${result.code})`}\n${text ? `${text}\n` : ''}`);
}
