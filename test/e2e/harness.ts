// End-to-end harness: the real CLI (bin/assetgen.js → dist/) spawned without a TTY against the real
// bundled mock on an ephemeral loopback port, with HOME and every assetgen directory in a temp dir.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../../src/mock/index.js';

export const BIN = fileURLToPath(new URL('../../bin/assetgen.js', import.meta.url));

export interface MockHandle {
  url: string;
  apiKey: string;
  sessionCookie: string;
  close(): Promise<void>;
  state(): Promise<MockState>;
  config(settings: Record<string, unknown>): Promise<void>;
}

export interface MockState {
  credits: number;
  ledger: { amount: number; reason: string }[];
  [key: string]: unknown;
}

export async function startMock(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockHandle> {
  const mock = await startMockServer(options);
  return {
    ...mock,
    async state() {
      const response = await fetch(`${mock.url}/__mock/state`);
      return (await response.json()) as MockState;
    },
    async config(settings) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(settings),
      });
      if (!response.ok) throw new Error(`mock config failed: ${response.status} ${await response.text()}`);
    },
  };
}

/** A fresh temp "home" with config/state dirs inside; removed by the returned cleanup. */
export function tempHome(): { home: string; cwd: string; env: NodeJS.ProcessEnv; remove(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-e2e-'));
  const cwd = path.join(home, 'project');
  fs.mkdirSync(cwd);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    ASSETGEN_CONFIG_DIR: path.join(home, '.config', 'assetgen'),
    ASSETGEN_STATE_DIR: path.join(home, '.local', 'state', 'assetgen'),
    NO_COLOR: '1',
  };
  return { home, cwd, env, remove: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface CliOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  input?: string;
  timeoutMs?: number;
}

/** Spawns the CLI; resolves when it exits (killed after timeoutMs so a hang fails the test). */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const child = spawnCli(args, options);
  return collect(child, options.timeoutMs ?? 20_000);
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
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
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
export function parseJson(result: CliResult): Record<string, unknown> {
  try {
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`stdout is not one JSON document:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}
