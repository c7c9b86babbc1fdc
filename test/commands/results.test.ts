// A command computes one result; the human renderer and the --json printer each present that same
// object (src/cli/command.ts), --json through the command's one projection of it. Each command here
// runs ONCE against the mock, then its result is presented twice — for people and as --json —
// without another call to the service, and by a fresh copy of the command's module as well as by
// the one that ran it: nothing a presentation reads is kept beside the result.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const DIST = new URL('../../dist/', import.meta.url);
// The built modules, as the CLI loads them (one module graph with the commands).
const load = async <T>(file: string): Promise<T> => (await import(new URL(file, DIST).href)) as T;
// Another instance of a built module (its own module state; the modules it imports are shared).
let copies = 0;
const freshCopy = async <T>(file: string): Promise<T> => (await import(new URL(`${file}?copy=${++copies}`, DIST).href)) as T;

type Ctx = { cleanup(): Promise<void> };
type Cmd = {
  run(ctx: Ctx, ...args: unknown[]): Promise<object>;
  render(ctx: Ctx, result: object, ...args: unknown[]): void | Promise<void>;
  settle?(ctx: Ctx, result: object, ...args: unknown[]): void;
  document(result: object): object;
};

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let present: (ctx: Ctx, cmd: Cmd, result: object, ...args: unknown[]) => Promise<void>;
let create: (init: unknown) => Promise<Ctx>;

beforeAll(async () => {
  mock = await startMock({});
  home = tempHome();
  ({ present } = await load<{ present: typeof present }>('cli/command.js'));
  const { CommandContext } = await load<{ CommandContext: { create: typeof create } }>('cli/context.js');
  create = (init) => CommandContext.create(init);
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

/** A context on in-memory streams; `stdout()` is what it printed there. */
async function context(json: boolean): Promise<{ ctx: Ctx; stdout: () => string; stderr: () => string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = new PassThrough().on('data', (chunk: Buffer) => out.push(chunk));
  const stderr = new PassThrough().on('data', (chunk: Buffer) => err.push(chunk));
  const ctx = await create({
    globals: { json, quiet: false, color: false, input: false, mock: false, verbose: false, allowInsecureHttp: false },
    io: { stdin: Readable.from([]), stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false },
    env: { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie },
    cwd: home.cwd,
    signal: new AbortController().signal,
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  await settle();
  return { ctx, stdout: () => Buffer.concat(out).toString('utf8'), stderr: () => Buffer.concat(err).toString('utf8') };
}

/** Runs `cmd` once, then presents its one result for people and as --json. */
async function once(cmd: Cmd, ...args: unknown[]) {
  const runner = await context(false);
  const result = await cmd.run(runner.ctx, ...args);
  const requests = (await mock.state()).requests;
  const human = await context(false);
  const json = await context(true);
  await present(human.ctx, cmd, result, ...args);
  await present(json.ctx, cmd, result, ...args);
  await new Promise((resolve) => setImmediate(resolve));
  // Presenting calls nothing.
  expect((await mock.state()).requests).toBe(requests);
  for (const c of [runner, human, json]) await c.ctx.cleanup();
  const document = JSON.parse(json.stdout()) as Record<string, unknown>;
  expect(document).toEqual(JSON.parse(JSON.stringify(cmd.document(result))));
  return { result: result as Record<string, any>, human: human.stdout(), humanErr: human.stderr(), document };
}

/** What presenting `result` prints for people, and as --json, through `cmd`. */
async function presented(cmd: Cmd, result: object, ...args: unknown[]) {
  const human = await context(false);
  const json = await context(true);
  await present(human.ctx, cmd, result, ...args);
  await present(json.ctx, cmd, result, ...args);
  await new Promise((resolve) => setImmediate(resolve));
  for (const c of [human, json]) await c.ctx.cleanup();
  return { stdout: human.stdout(), stderr: human.stderr(), document: json.stdout() };
}

describe('one result, two presentations', () => {
  it('generate: the saved path on stdout for people, the same path, size and charge in --json', async () => {
    const { generate } = await load<{ generate: Cmd }>('commands/generate.js');
    const { result, human, humanErr } = await once(generate, 'potion icon', { agent: 'sprite-artist', output: 'assets/potion.png' });
    expect(result.saved).toEqual([path.join(home.cwd, 'assets', 'potion.png')]);
    expect(result.media[0]).toMatchObject({ format: 'png', width: 128, height: 128 });
    expect(human.trim()).toBe(result.saved[0]);
    expect(humanErr).toContain('10 credits');
    expect(fs.existsSync(result.saved[0])).toBe(true);
  });

  it('agents and workflows list: a table for people from the records in --json', async () => {
    const { agents } = await load<{ agents: Cmd }>('commands/agents.js');
    const listed = await once(agents);
    expect(listed.result.source).toBe('service');
    for (const agent of listed.result.agents as { id: string }[]) expect(listed.human).toContain(agent.id);
    const { list } = await load<{ list: Cmd }>('commands/workflows.js');
    const workflows = await once(list);
    for (const workflow of workflows.result.workflows as { id: string }[]) expect(workflows.human).toContain(workflow.id);
  });

  it('video create --no-wait: the job id for people, the job and its resume command in --json', async () => {
    const { create: createVideo } = await load<{ create: Cmd }>('commands/video.js');
    const { result, human } = await once(createVideo, 'torch', { yes: true, wait: false });
    expect(human.trim()).toBe(result.job.id);
    expect(result.job.resume).toContain(`assetgen video wait ${result.job.id}`);
    expect(result.credits.charged).toBe(180);
  });

  it('jobs, init and version', async () => {
    const { jobs } = await load<{ jobs: Cmd }>('commands/jobs.js');
    const listed = await once(jobs, { limit: 5 });
    expect(listed.result.jobs.length).toBeGreaterThan(0);
    expect(listed.human).toContain(listed.result.jobs[0].id);
    const { init } = await load<{ init: Cmd }>('commands/project/init.js');
    const made = await once(init, {});
    expect(made.human.trim()).toBe('assetgen.yaml\n.gitignore');
    expect(made.result).toMatchObject({ manifest: path.join(home.cwd, 'assetgen.yaml'), created: true });
    const { version } = await load<{ version: Cmd }>('commands/version.js');
    const shown = await once(version);
    expect(shown.human.trim()).toBe(shown.result.version);
  });
});

describe('render reads only the result', () => {
  it('runs get and video get: a copy of the module that never ran presents the result as the one that did', async () => {
    const { runWorkflow } = await load<{ runWorkflow: Cmd }>('commands/workflows.js');
    const { create: createVideo } = await load<{ create: Cmd }>('commands/video.js');
    const run = (await once(runWorkflow, 'wf_sprite_sheet', { set: [], wait: false })).result.id as string;
    const job = (await once(createVideo, 'torch', { yes: true, wait: false })).result.job.id as string;
    for (const [file, id] of [
      ['commands/runs.js', run],
      ['commands/video.js', job],
    ] as const) {
      const { get } = await load<{ get: Cmd }>(file);
      const { result, human, document } = await once(get, id);
      expect(human, file).toContain(id);
      expect(document.id, file).toBe(id);
      const { get: copy } = await freshCopy<{ get: Cmd }>(file);
      expect(await presented(copy, result, id), file).toEqual(await presented(get, result, id));
    }
  });

  it('build: a copy of build.js that never ran the paid path presents and settles a build that ran', async () => {
    const dir = path.join(home.cwd, 'render-project');
    fs.mkdirSync(dir, { recursive: true });
    const manifest = path.join(dir, 'assetgen.yaml');
    fs.writeFileSync(manifest, 'assets:\n  - { id: gem, prompt: a gem, agent: sprite-artist, out: assets/gem.png }\n');
    const { build } = await load<{ build: Cmd }>('commands/project/build.js');
    const options = { file: manifest, concurrency: 1, yes: true };
    const { result, humanErr, document } = await once(build, [], options);
    expect(document.totals).toMatchObject({ built: 1 });
    expect(humanErr).toContain('Built 1');
    const { build: copy } = await freshCopy<{ build: Cmd }>('commands/project/build.js');
    expect(await presented(copy, result, [], options)).toEqual(await presented(build, result, [], options));
    const settling = await context(false);
    expect(() => copy.settle!(settling.ctx, result, [], options)).not.toThrow();
    await settling.ctx.cleanup();
  });
});
