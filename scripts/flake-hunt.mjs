#!/usr/bin/env node
// `npm run test:flakes -- --runs 30`: runs the whole `npm test` N times in a row while a CPU hog
// keeps every core busy (a loaded laptop or CI runner, on demand), and reports each run's result
// and wall time, each failing test by name, and a summary. With test files after the options, runs
// only `vitest run <files>` N times under the hog (after one `npm run build:js`, as their
// end-to-end tests run dist/): the way to hunt one flake, or to check its fix.
//
//   npm run test:flakes -- --runs 30                       the whole npm test, 30 times
//   npm run test:flakes -- --runs 20 test/client/timeouts.test.ts
//   options: --runs N (10), --hog N (spinning processes; the cores by default, 0 for none),
//            --run-timeout MINUTES (15: a run still going then is killed and counted as failed)
//
// The hog is bounded: one spinning child per core, each ending by itself when this script is gone
// (it watches its parent) and at the latest after the runs' own bound; this script kills them when
// it ends, however it ends (done, Ctrl-C, SIGTERM, an error). Each run's output and vitest's JSON
// report are kept in a temp folder, printed at the end. Exits 1 when any run failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';

/** The runs still going, killed with the hog when this script ends early. */
const running = new Set();
const options = parseArguments(process.argv.slice(2));
const logs = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-flake-hunt-'));
const hog = startHog(options.hog, options.runs * options.runTimeoutMinutes);

try {
  if (options.files.length > 0) {
    process.stdout.write('Building dist/ once (npm run build:js)…\n');
    const build = await run(npmCommand(['run', '--silent', 'build:js']), path.join(logs, 'build.log'), options.runTimeoutMinutes);
    if (build.code !== 0) throw new Error(`npm run build:js failed (exit ${build.code}); see ${path.join(logs, 'build.log')}`);
  }
  const what = options.files.length > 0 ? `vitest run ${options.files.join(' ')}` : 'npm test';
  process.stdout.write(`${what}, ${options.runs} times, with ${options.hog} spinning process(es) beside it. Logs: ${logs}\n`);
  const results = [];
  for (let index = 1; index <= options.runs; index++) {
    const label = String(index).padStart(String(options.runs).length, '0');
    const report = path.join(logs, `run-${label}.json`);
    const vitestArgs = ['--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
    const command =
      options.files.length > 0
        ? [process.execPath, [vitestBin(), 'run', ...options.files, ...vitestArgs]]
        : [process.execPath, [path.join('scripts', 'test.mjs'), ...vitestArgs]];
    const result = await run(command, path.join(logs, `run-${label}.log`), options.runTimeoutMinutes);
    const failures = failedTests(report, result);
    results.push({ ...result, failures });
    const mark = result.code === 0 ? '✓' : '✗';
    process.stdout.write(
      `run ${label}/${options.runs} ${mark} ${result.seconds.toFixed(1)} s${result.timedOut ? ' (killed: over the run timeout)' : ''}\n`,
    );
    for (const failure of failures) process.stdout.write(`    ✗ ${failure}\n`);
  }
  printSummary(results);
  if (results.some((result) => result.code !== 0)) process.exitCode = 1;
} catch (error) {
  process.stderr.write(`flake-hunt: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  hog.stop();
}

function parseArguments(args) {
  const parsed = { runs: 10, hog: os.availableParallelism(), runTimeoutMinutes: 15, files: [] };
  const number = (name, value, min) => {
    const parsedValue = Number(value);
    if (!Number.isInteger(parsedValue) || parsedValue < min) usage(`${name} takes a whole number ≥ ${min}`);
    return parsedValue;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--runs') parsed.runs = number(arg, args[++index], 1);
    else if (arg === '--hog') parsed.hog = number(arg, args[++index], 0);
    else if (arg === '--run-timeout') parsed.runTimeoutMinutes = number(arg, args[++index], 1);
    else if (arg === '--help' || arg === '-h') usage();
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    else parsed.files.push(arg);
  }
  return parsed;
}

function usage(problem) {
  const text = 'usage: npm run test:flakes -- [--runs N] [--hog N] [--run-timeout MINUTES] [test files…]\n';
  if (problem) {
    process.stderr.write(`flake-hunt: ${problem}\n${text}`);
    process.exit(2);
  }
  process.stdout.write(text);
  process.exit(0);
}

/** `npm <args>` through the npm running this script (npm_execpath), or the one on PATH. */
function npmCommand(args) {
  const npmCli = process.env.npm_execpath;
  return npmCli ? [process.execPath, [npmCli, ...args]] : ['npm', args];
}

function vitestBin() {
  return path.join('node_modules', 'vitest', 'vitest.mjs');
}

/**
 * Runs a command with its output into `logFile`; resolves with its exit code and wall time. A run
 * past `timeoutMinutes` is killed (its whole process group: vitest's workers, the CLIs they spawned).
 */
function run([command, args], logFile, timeoutMinutes) {
  const log = fs.openSync(logFile, 'w');
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', log, log], detached: process.platform !== 'win32' });
  running.add(child);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child);
  }, timeoutMinutes * 60_000);
  return new Promise((resolve) => {
    const done = (code) => {
      clearTimeout(timer);
      running.delete(child);
      fs.closeSync(log);
      resolve({ code, timedOut, seconds: (performance.now() - started) / 1000, logFile });
    };
    child.on('error', () => done(1));
    child.on('close', (code) => done(code ?? 1));
  });
}

function killTree(child) {
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The failing tests of one run, from vitest's JSON report; else why the run failed (from its log). */
function failedTests(reportFile, result) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  } catch {
    report = undefined;
  }
  const failures = [];
  for (const file of report?.testResults ?? []) {
    const name = path.relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) failures.push(`${name} > ${test.fullName ?? test.title}`);
    // A file that failed outside its tests (a hook, an import, an unhandled error).
    if (failed.length === 0 && file.status === 'failed') failures.push(`${name}: ${firstLine(file.message) || 'failed outside its tests'}`);
  }
  if (result.code !== 0 && failures.length === 0) {
    const tail = fs.readFileSync(result.logFile, 'utf8').trimEnd().split('\n').slice(-3).join(' / ');
    failures.push(report ? `(no failing test: ${tail})` : `(no vitest report: ${tail})`);
  }
  return failures;
}

function firstLine(text) {
  return String(text ?? '')
    .split('\n')
    .find((line) => line.trim())
    ?.trim()
    .slice(0, 200);
}

function printSummary(results) {
  const passed = results.filter((result) => result.code === 0).length;
  const times = results.map((result) => result.seconds).sort((a, b) => a - b);
  const median = times[Math.floor((times.length - 1) / 2)];
  process.stdout.write(
    `\n${passed}/${results.length} runs green · wall time min ${times[0].toFixed(1)} s, median ${median.toFixed(1)} s, max ${times.at(-1).toFixed(1)} s\n`,
  );
  const counts = new Map();
  for (const result of results) for (const failure of new Set(result.failures)) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  if (counts.size > 0) {
    process.stdout.write('Failing tests (runs failed in):\n');
    for (const [failure, count] of [...counts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${count}× ${failure}\n`);
  }
  process.stdout.write(`Logs and vitest JSON reports: ${logs}\n`);
}

/**
 * `count` child processes that spin. Each ends by itself once its parent (this script) is gone or
 * after `maxMinutes`; stop() kills them, and so do this script's exit and the signals that end it.
 */
function startHog(count, maxMinutes) {
  const spinner = `
    const parent = process.ppid;
    const end = Date.now() + ${Math.ceil(maxMinutes * 60_000)};
    for (;;) {
      const slice = Date.now() + 50;
      while (Date.now() < slice);
      if (process.ppid !== parent || Date.now() > end) process.exit(0);
    }`;
  const children = Array.from({ length: count }, () => spawn(process.execPath, ['-e', spinner], { stdio: 'ignore' }));
  const stop = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const child of running) killTree(child);
  };
  process.on('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      stop();
      process.stderr.write(`flake-hunt: ${signal}, stopped (the hog and any run killed)\n`);
      process.exit(128 + os.constants.signals[signal]);
    });
  }
  return { stop };
}
