// Every example of every help screen, run as a user pastes it: each in a fresh project (a new home
// and project folder, nothing from another example) against the bundled mock. An example succeeds
// (exit 0), or says beside it (`# exit N …`) the code it ends with by design, and ends with that.
// What an example needs first is made the way a user makes it, with assetgen itself: the starter
// manifest (`assetgen init`), a run or a video to poll, the shard locks a CI job uploads.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import type * as ProgramModule from '../../src/program.cjs';
import { type CliResult, commandPaths, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { startRemoteCache, type RemoteCacheServer } from '../support/remote-cache.js';

const require = createRequire(import.meta.url);
const { EXAMPLES } = require('../../dist/program.cjs') as typeof ProgramModule;

let mock: MockHandle;

beforeAll(async () => {
  mock = await startMock({ credits: 1_000_000 });
  await mock.config({ videoPollAfterMs: 20 });
});
/** The remote cache a user names (`https://cache.example.com`): the real server, started when an example names it. */
let remoteCache: Promise<RemoteCacheServer> | undefined;
afterAll(async () => {
  await mock.close();
  await (await remoteCache)?.close();
});

/** The `$ …` lines of a help screen's Examples section, as printed. */
function examplesOf(help: string): string[] {
  const section = help.slice(help.indexOf('\nExamples:\n'));
  return [...section.matchAll(/^ {2}\$ (.+)$/gm)].map((match) => match[1]!);
}

/** Every example line of every help screen, once (each screen read in this process, no service needed). */
async function helpExampleLines(): Promise<string[]> {
  const home = tempHome();
  try {
    const lines = new Set<string>();
    for (const words of commandPaths())
      for (const line of examplesOf((await runInProcess([...words, '--help'], { env: home.env, cwd: home.cwd })).stdout)) lines.add(line);
    return [...lines];
  } finally {
    home.remove();
  }
}

const EXAMPLE_LINES = await helpExampleLines();

interface Example {
  /** The line as the help prints it. */
  line: string;
  args: string[];
  /** `printf %s "$VAR" | …`: the variable piped in. */
  piped?: string;
  /** `… > file`: where stdout goes. */
  redirect?: string;
  /** The exit code the note beside it promises; 0 without one. */
  exit: number;
}

/** A POSIX-shell reading of our examples: `printf %s "$VAR" | assetgen …`, quotes, `> file`, `# note`. */
function parseExample(line: string): Example {
  let rest = line;
  let exit = 0;
  const note = / {2}# (.*)$/.exec(rest);
  if (note) {
    const code = /^exit (\d+)\b/.exec(note[1]!);
    expect(code, `a note beside an example starts with the exit it ends with: ${line}`).not.toBeNull();
    exit = Number(code![1]);
    rest = rest.slice(0, note.index);
  }
  const pipe = /^printf %s "\$(\w+)" \| /.exec(rest);
  const piped = pipe?.[1];
  if (pipe) rest = rest.slice(pipe[0].length);
  const out = / > (\S+)$/.exec(rest);
  const redirect = out?.[1];
  if (out) rest = rest.slice(0, out.index);
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
  expect(words[0], line).toBe('assetgen');
  return { line, args: words.slice(1), piped, redirect, exit };
}

/** A fresh project: its own home (with a coding agent, for the skills examples) and folder. */
function freshProject(): { home: ReturnType<typeof tempHome>; env: NodeJS.ProcessEnv; run(args: string[]): Promise<CliResult> } {
  const home = tempHome();
  fs.mkdirSync(path.join(home.home, '.claude'), { recursive: true });
  const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie };
  return { home, env, run: (args) => runInProcess(args, { env, cwd: home.cwd }) };
}

/** What the example needs before it can run, made with assetgen as a user makes it; placeholders filled. */
async function prepare(example: Example, project: ReturnType<typeof freshProject>): Promise<string[]> {
  const ok = async (args: string[]): Promise<CliResult> => {
    const result = await project.run(args);
    expect(result.code, `setting up "${example.line}": assetgen ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result;
  };
  const [command] = example.args;
  // Commands that read the project's manifest start from the starter one.
  if (['build', 'report', 'lock', 'takes', 'pick', 'check'].includes(command!)) await ok(['init']);
  // `check` measures what a build made: the starter's sword, built.
  if (command === 'check') await ok(['build', '--yes']);
  // `takes` looks at an asset built with takes: the starter's sword, given `variants: 3`, built.
  if (command === 'takes') {
    const manifest = path.join(project.home.cwd, 'assetgen.yaml');
    const starter = fs.readFileSync(manifest, 'utf8');
    expect(starter).toContain('    agent: icon-forge\n');
    fs.writeFileSync(manifest, starter.replace('    agent: icon-forge\n', '    agent: icon-forge\n    variants: 3\n'));
    await ok(['build', 'sword', '--yes']);
  }
  // `pick` chooses among takes: the starter's sword with three, as `build --more` makes them.
  if (command === 'pick') await ok(['build', 'sword', '--more', '2']);
  // `lock merge` joins the locks of two shards, written as docs/ci.md's jobs write them.
  if (command === 'lock')
    for (const shard of [1, 2]) await ok(['build', '--shard', `${shard}/2`, '--lock-out', `shard-${shard}.lock`, '--yes']);
  let args = example.args;
  if (args.includes('<runId>')) {
    const runId = parseJson(await ok(['workflows', 'run', 'wf_tileset', '--no-wait', '--json'])).id as string;
    args = args.map((arg) => (arg === '<runId>' ? runId : arg));
  }
  if (args.includes('<id>')) {
    const videoId = parseJson(await ok(['video', 'create', 'torch', '--yes', '--no-wait', '--json'])).id as string;
    args = args.map((arg) => (arg === '<id>' ? videoId : arg));
  }
  // The remote cache a user names is a real one here, with its token in the environment as docs/build.md says.
  if (args.includes('https://cache.example.com')) {
    const cache = await (remoteCache ??= startRemoteCache());
    project.env.ASSETGEN_REMOTE_CACHE_TOKEN = cache.token;
    args = args.map((arg) => (arg === 'https://cache.example.com' ? cache.url : arg));
  }
  // The service a user names is this mock; a fixed port could be taken.
  return args
    .map((arg) => (arg === 'https://assets.example.com' ? mock.url : arg))
    .map((arg, i, all) => (all[i - 1] === '--port' ? '0' : arg));
}

describe('help examples', () => {
  it('are the examples of the command table, every one of them shown', async () => {
    const project = freshProject();
    try {
      const shown: string[] = [];
      for (const words of commandPaths()) shown.push(...examplesOf((await project.run([...words, '--help'])).stdout));
      expect(new Set(shown)).toEqual(new Set(Object.values(EXAMPLES).flat()));
    } finally {
      project.home.remove();
    }
  });

  it('are more than 40, each run below', () => {
    expect(EXAMPLE_LINES.length).toBeGreaterThan(40);
  });

  // One test per example, each with its own time bound (a single test for all ~50 outran its 30 s
  // on a loaded machine); independent of each other (each its own project), so a few at a time.
  it.concurrent.each(EXAMPLE_LINES)('ends as it says from a fresh project: $ %s', async (line) => {
    const example = parseExample(line);
    const project = freshProject();
    try {
      const args = await prepare(example, project);
      // `assetgen mock` serves until Ctrl-C: stop it once it has printed its address.
      const controller = new AbortController();
      const serving = args[0] === 'mock';
      const result = await runInProcess(args, {
        env: project.env,
        cwd: project.home.cwd,
        input: example.piped === undefined ? undefined : project.env[example.piped],
        interrupt: serving ? controller.signal : undefined,
        onStdout: serving ? () => controller.abort() : undefined,
      });
      if (serving) {
        expect(result.stdout, 'no address printed').toMatch(/127\.0\.0\.1/);
        return;
      }
      expect(result.code, `exit ${result.code}, expected ${example.exit}\n${result.stderr}`).toBe(example.exit);
      if (example.redirect?.endsWith('.png')) expect(result.stdoutBytes.subarray(1, 4).toString('latin1'), 'stdout is a PNG').toBe('PNG');
      else if (example.redirect) expect(result.stdout.length, 'something on stdout').toBeGreaterThan(0);
    } finally {
      project.home.remove();
    }
  });
});
