// Every help screen ends with examples and shows the global options; every example, run as
// written (placeholders filled with real ids), succeeds against the bundled mock.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ProgramModule from '../../src/program.cjs';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const require = createRequire(import.meta.url);
const { buildProgram, EXAMPLES, commandPath } = require('../../dist/program.cjs') as typeof ProgramModule;

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mock = await startMock({ credits: 100_000 });
  await mock.config({ videoPollAfterMs: 20 });
  home = tempHome();
  fs.mkdirSync(path.join(home.home, '.claude'), { recursive: true }); // a detected coding agent
  // The shard locks the `lock merge` examples join, as CI artifacts would leave them.
  for (const shard of ['shard-1', 'shard-2']) {
    fs.mkdirSync(path.join(home.cwd, shard));
    fs.writeFileSync(path.join(home.cwd, shard, 'assetgen.lock'), JSON.stringify({ lockfileVersion: 1, assets: {} }));
  }
  env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie };
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

function allCommands(): Command[] {
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const list: Command[] = [];
  const walk = (command: Command): void => {
    list.push(command);
    command.commands.forEach(walk);
  };
  walk(program);
  return list;
}

/** A POSIX-shell reading of our examples: `printf %s "$VAR" | assetgen …`, quotes, `> file`. */
function parseExample(line: string): { args: string[]; input?: string; redirect?: string } {
  let rest = line;
  let input: string | undefined;
  const pipe = /^printf %s "\$(\w+)" \| /.exec(rest);
  if (pipe) {
    input = env[pipe[1]!];
    rest = rest.slice(pipe[0].length);
  }
  let redirect: string | undefined;
  const out = / > (\S+)$/.exec(rest);
  if (out) {
    redirect = out[1];
    rest = rest.slice(0, out.index);
  }
  // Words end at unquoted spaces; double quotes may open mid-word (`character="a dwarf"`).
  const words: string[] = [];
  let word: string | undefined;
  let quoted = false;
  for (const char of rest) {
    if (char === '"') {
      quoted = !quoted;
      word ??= '';
    } else if (char === ' ' && !quoted) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  expect(words[0]).toBe('assetgen');
  return { args: words.slice(1), input, redirect };
}

describe('help', () => {
  const commands = allCommands();

  it('every command has examples and shows the global options', async () => {
    for (const command of commands) {
      const name = commandPath(command);
      expect(EXAMPLES[name], `examples for "${name}"`).toBeDefined();
      const help = await runInProcess([...name.split(' ').filter(Boolean), '--help'], { env, cwd: home.cwd });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/\nExamples:\n {2}\$ /);
      expect(help.stdout.trimEnd().split('\n').at(-1)).toMatch(/^ {2}\$ /);
      if (command.parent) expect(help.stdout, name).toContain('Global Options:');
    }
  });

  it('groups the commands in the top-level help', async () => {
    const help = await runInProcess(['--help'], { env, cwd: home.cwd });
    for (const heading of ['Generate:', 'Workflows:', 'Video:', 'Build:', 'Setup:', 'Mock:'])
      expect(help.stdout).toContain(`\n${heading}\n`);
  });

  it('-v, -V, --version and `assetgen version` agree', async () => {
    const expected = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
    for (const args of [['-V'], ['--version'], ['version']]) {
      expect((await runInProcess(args, { env, cwd: home.cwd })).stdout.trim()).toBe(expected);
    }
    expect(parseJson(await runInProcess(['version', '--json'], { env, cwd: home.cwd })).version).toBe(expected);
  });

  it('every example runs green against the mock', async () => {
    const run = parseJson(await runInProcess(['workflows', 'run', 'wf_tileset', '--no-wait', '--json'], { env, cwd: home.cwd }));
    const video = parseJson(await runInProcess(['video', 'create', 'torch', '--yes', '--no-wait', '--json'], { env, cwd: home.cwd }));
    const lines = [...new Set(Object.values(EXAMPLES).flat())];
    for (const line of lines) {
      const filled = line
        .replaceAll('<runId>', run.id as string)
        .replaceAll('<id>', video.id as string)
        .replaceAll('https://assets.example.com', mock.url)
        .replace('--port 8787', '--port 0');
      const { args, input, redirect } = parseExample(filled);
      // `assetgen mock` serves until Ctrl-C: stop it once it has printed its address.
      const controller = new AbortController();
      const serving = args[0] === 'mock';
      const result = await runInProcess([...args, ...(args.includes('--force') || !args.includes('-o') ? [] : ['--force'])], {
        env,
        cwd: home.cwd,
        input,
        interrupt: serving ? controller.signal : undefined,
        onStdout: serving ? () => controller.abort() : undefined,
      });
      if (serving) {
        expect(result.stdout, line).toMatch(/127\.0\.0\.1/);
        continue;
      }
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      if (redirect?.endsWith('.png')) expect(result.stdoutBytes.subarray(1, 4).toString('latin1'), line).toBe('PNG');
      else if (redirect) expect(result.stdout.length, line).toBeGreaterThan(0);
    }
  });
});
