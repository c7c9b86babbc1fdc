// Running the CLI in tests. `runInProcess` runs the same command table as the binary (dist/program.cjs)
// in this process, with in-memory streams and no terminal, the way gh tests commands with
// iostreams.Test(): fast, and what it prints is what the binary prints. `runCli` spawns the real
// binary, for what only a process has (exit, signals, TTY detection, start-up, the proxy env).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import type { RetryTiming } from '../../src/cli/context.js';
import type * as ProgramModule from '../../src/program.cjs';

export const BIN = fileURLToPath(new URL('../../bin/assetgen.js', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
  /** In-process only. */
  stderrBytes?: Buffer;
}

export interface CliOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  input?: string;
  timeoutMs?: number;
  /** In-process only: aborting it is Ctrl-C. */
  interrupt?: AbortSignal;
  /** In-process only: --timeout runs out when this aborts, not on the clock (abort it once the call to stop in is out). */
  timeoutWhen?: AbortSignal;
  /** In-process only: how long a build's call in flight at Ctrl-C or --timeout gets to answer (5 s otherwise). */
  answerGraceMs?: number;
  /** In-process only: the client's waits between a call's attempts; FAST_RETRIES unless given. */
  retryTiming?: RetryTiming;
  /** In-process only: called with each chunk written to stderr (to wait for a line). */
  onStderr?: (text: string) => void;
  /** In-process only: called with each chunk written to stdout. */
  onStdout?: (text: string) => void;
  /** In-process only: which streams the command is told are terminals (none by default). */
  tty?: { stdout?: boolean; stderr?: boolean };
  /** In-process only: a live stdin (instead of `input`), for a command that reads as it goes (`mcp`). */
  stdin?: Readable;
}

/**
 * The PATH of the processes tests start: this one's, less every folder that holds an `assetgen`
 * (an `npm link`ed or global install changes what the installer writes into a skill) and npm's
 * transient bins. A test that needs `assetgen` on PATH puts its own there. The CLI is always
 * started as `node bin/assetgen.js` (process.execPath), so it needs nothing from PATH itself.
 */
export const TEST_PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => dir && !dir.split(/[\\/]+/).includes('_npx') && !/node_modules[\\/]\.bin$/.test(dir))
  .filter((dir) => !['assetgen', 'assetgen.cmd', 'assetgen.exe'].some((name) => fs.existsSync(path.join(dir, name))))
  .join(path.delimiter);

/** Every file under `dir`, relative, with `/` between folders, sorted. */
export function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => fs.statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

/**
 * A fresh temp "home" with config/state dirs inside; removed by the returned cleanup. Its env is
 * all a spawned CLI sees (nothing of this machine's: no TERM, CI, proxy or colour settings), with
 * TEST_PATH, no colour and UTC.
 */
export function tempHome(): { home: string; cwd: string; env: NodeJS.ProcessEnv; remove(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-test-'));
  const cwd = path.join(home, 'project');
  fs.mkdirSync(cwd);
  const env: NodeJS.ProcessEnv = {
    PATH: TEST_PATH,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    ASSETGEN_CONFIG_DIR: path.join(home, '.config', 'assetgen'),
    ASSETGEN_STATE_DIR: path.join(home, '.local', 'state', 'assetgen'),
    NO_COLOR: '1',
    TZ: 'UTC',
  };
  return { home, cwd, env, remove: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/**
 * The waits between attempts of in-process runs: a millisecond or so, and a Retry-After (the mock's
 * 429 says 1 s) left to that backoff. What is retried, how often and what it costs are the client's
 * own, as in the binary; only the waiting goes (test/client tests the waits themselves).
 */
export const FAST_RETRIES: RetryTiming = { retryBaseDelayMs: 1, retryMaxDelayMs: 4, maxRetryAfterMs: 1 };

/** Runs `assetgen <args>` in this process: no TTY, the given env and cwd, stdin from `input`. */
export async function runInProcess(args: string[], options: CliOptions): Promise<CliResult> {
  const require = createRequire(import.meta.url);
  // Through require (not the test runner's import), so the command table, the kit and the commands
  // load natively as one module graph, exactly as in the binary.
  const { buildProgram, executeIn } = require(path.join(DIST, 'program.cjs')) as typeof ProgramModule;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  // Decoded across chunks: a character split between two writes reaches the callback whole.
  const outText = new StringDecoder('utf8');
  const errText = new StringDecoder('utf8');
  stdout.on('data', (chunk: Buffer) => {
    out.push(chunk);
    options.onStdout?.(outText.write(chunk));
  });
  stderr.on('data', (chunk: Buffer) => {
    err.push(chunk);
    options.onStderr?.(errText.write(chunk));
  });
  const stdin = options.stdin ?? Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  const built = buildProgram({
    version: (JSON.parse(fs.readFileSync(path.join(DIST, '..', 'package.json'), 'utf8')) as { version: string }).version,
    execute: executeIn({
      io: {
        stdin,
        stdout,
        stderr,
        stdinIsTTY: false,
        stdoutIsTTY: options.tty?.stdout ?? false,
        stderrIsTTY: options.tty?.stderr ?? false,
      },
      env: { ...options.env },
      cwd: options.cwd,
      signals: false,
      interrupt: options.interrupt,
      timeoutWhen: options.timeoutWhen,
      answerGraceMs: options.answerGraceMs,
      retryTiming: options.retryTiming ?? FAST_RETRIES,
    }),
    writeOut: (text) => void stdout.write(text),
    writeErr: (text) => void stderr.write(text),
  });
  const code = await built.run(args);
  // Let the PassThroughs deliver what was written last.
  await new Promise((resolve) => setImmediate(resolve));
  const stdoutBytes = Buffer.concat(out);
  return {
    code,
    signal: null,
    stdout: stdoutBytes.toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    stdoutBytes,
    stderrBytes: Buffer.concat(err),
  };
}

/** Every command path of the binary's command table, the program itself first (`[]`), then `['auth']`, `['auth', 'login']`, …. */
export function commandPaths(): string[][] {
  const require = createRequire(import.meta.url);
  const { buildProgram } = require(path.join(DIST, 'program.cjs')) as typeof ProgramModule;
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const paths: string[][] = [];
  const walk = (command: typeof program, words: string[]): void => {
    paths.push(words);
    for (const sub of command.commands) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return paths;
}

/** Spawns the real binary; resolves when it exits (killed after timeoutMs so a hang fails the test). */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return collect(spawnCli(args, options), options.timeoutMs ?? 20_000);
}

export function spawnCli(args: string[], options: CliOptions): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  return child;
}

export function collect(child: ChildProcess, timeoutMs: number): Promise<CliResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk)); // null when stdout goes elsewhere
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not exit within ${timeoutMs} ms; stderr so far:\n${Buffer.concat(err).toString()}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes });
    });
  });
}

/**
 * Spawns the real binary with its stdout on an OS pipe into a reader that takes nothing for
 * `delayMs`, then reads it all (a slow `| jq`): the pipe fills, and what the CLI has not handed
 * over by the time it ends would be lost. `stdout` is what the reader received.
 */
export function runCliIntoSlowReader(args: string[], options: CliOptions, delayMs = 1000): Promise<CliResult> {
  const reader = spawn(process.execPath, ['-e', `setTimeout(() => process.stdin.pipe(process.stdout), ${delayMs})`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const child = spawn(process.execPath, [BIN, ...args], { env: options.env, cwd: options.cwd, stdio: ['pipe', reader.stdin!, 'pipe'] });
  reader.stdin!.destroy(); // the CLI now holds the only writing end: the reader sees the end when it exits
  child.stdin!.end(options.input ?? '');
  const received: Buffer[] = [];
  reader.stdout!.on('data', (chunk: Buffer) => received.push(chunk));
  const readerDone = new Promise<void>((resolve, reject) => {
    reader.on('error', reject);
    reader.on('close', () => resolve());
  });
  const timeoutMs = options.timeoutMs ?? 20_000;
  const stop = setTimeout(() => reader.kill('SIGKILL'), timeoutMs);
  return Promise.all([collect(child, timeoutMs), readerDone]).then(([result]) => {
    clearTimeout(stop);
    const stdoutBytes = Buffer.concat(received);
    return { ...result, stdout: stdoutBytes.toString('utf8'), stdoutBytes };
  });
}

/** Resolves once `text` appears on the child's stderr (bounded by timeoutMs). */
export function waitForStderr(child: ChildProcess, text: string | RegExp, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`"${String(text)}" not seen on stderr within ${timeoutMs} ms; saw:\n${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (typeof text === 'string' ? seen.includes(text) : text.test(seen)) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        resolve();
      }
    };
    child.stderr!.on('data', onData);
  });
}

/** Parses stdout as exactly one JSON document (throws with the raw text otherwise). */
export function parseJson(result: CliResult): Record<string, any> {
  try {
    return JSON.parse(result.stdout) as Record<string, any>;
  } catch {
    throw new Error(`stdout is not one JSON document:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** The last stderr line parsed as the `--json` error document. */
export function jsonError(result: CliResult): Record<string, any> {
  const last = result.stderr.trim().split('\n').at(-1) ?? '';
  try {
    return (JSON.parse(last) as { error: Record<string, any> }).error;
  } catch {
    throw new Error(`the last stderr line is not a JSON error:\n${result.stderr}`);
  }
}

/** Splits a command assetgen printed the way a POSIX shell would (its printer only uses single quotes). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  return words;
}
