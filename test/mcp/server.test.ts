// `assetgen mcp` through the SDK's stdio client: the tools, their schemas and annotations, files
// saved, progress notifications, credits (checked in the mock's ledger), faults and concurrency.
import fs from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, runInProcess, tempHome } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
let mcp: McpSession;

beforeAll(async () => {
  mock = await startMock({});
  home = tempHome();
  env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie };
  mcp = await startMcp({ env, cwd: home.cwd });
});
afterAll(async () => {
  await mcp?.close();
  await mock.close();
  home.remove();
});
beforeEach(async () => {
  await mock.reset();
  await mock.config({ videoPollAfterMs: 20 });
});

const charges = async (): Promise<number[]> => (await mock.state()).ledger.map((entry) => entry.amount);

/** Decodes a PNG far enough to know it is one: signature, IHDR, and IDAT data that inflates to the declared size. */
function decodePng(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let offset = 8;
  let width = 0;
  let height = 0;
  let bytesPerPixel = 4;
  const idat: Buffer[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      bytesPerPixel = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[data[9]!]! * (data[8]! / 8);
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(inflateSync(Buffer.concat(idat)).length).toBe(height * (1 + Math.ceil(width * bytesPerPixel)));
  return { width, height };
}

describe('assetgen mcp', () => {
  it('lists every tool with its schema and truthful annotations', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        'create_video',
        'generate_image',
        'get_run',
        'get_video',
        'list_agents',
        'list_jobs',
        'list_workflows',
        'run_workflow',
        'wait_run',
        'wait_video',
        'build',
        'check_assets',
        'list_takes',
        'pick_variant',
      ].sort(),
    );
    expect(byName.generate_image!.inputSchema.required).toEqual(['prompt', 'agent']);
    expect(Object.keys(byName.generate_image!.inputSchema.properties ?? {})).toEqual([
      'prompt',
      'agent',
      'output',
      'overwrite',
      'idempotency_key',
      'variants',
      'confirm_paid_calls',
    ]);
    expect(byName.create_video!.inputSchema.properties).toHaveProperty('confirm_credits');
    expect(byName.run_workflow!.inputSchema.properties).toHaveProperty('overrides');
    for (const name of ['list_agents', 'list_workflows', 'get_video', 'list_jobs'])
      expect(byName[name]!.annotations?.readOnlyHint, name).toBe(true);
    for (const name of ['generate_image', 'run_workflow', 'create_video', 'build']) {
      expect(byName[name]!.annotations, name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
    }
    expect(byName.list_jobs!.annotations?.openWorldHint).toBe(false);
    // check_assets reads the project's files only: no service, nothing written.
    expect(byName.check_assets!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    // Takes: looked at and picked in the project only (the output remade from a kept take), never paid.
    for (const name of ['list_takes', 'pick_variant'])
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: false, idempotentHint: true, openWorldHint: false });
    for (const tool of tools) expect(tool.annotations?.destructiveHint, tool.name).toBe(false);
  });

  it('generate_image saves a decodable PNG and returns it as image content, with the id and credits', async () => {
    const { result, json } = await mcp.call('generate_image', { prompt: 'rusty sword', agent: 'sprite-artist', output: 'assets/icons/' });
    expect(result.isError).toBeFalsy();
    expect(json.path).toMatch(/assets[\\/]icons[\\/]gen_\w+\.png$/);
    expect(json.generationId).toMatch(/^gen_/);
    expect(json.credits).toEqual({ charged: 10, refunded: 0, balance: 990 });
    const bytes = fs.readFileSync(json.path as string);
    expect(decodePng(bytes).width).toBeGreaterThan(0);
    const image = result.content.find((item) => item.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from((image as { data: string }).data, 'base64').equals(bytes)).toBe(true);
    expect(await charges()).toEqual([-10]);
  });

  it('run_workflow sends one progress notification per node and makes exactly N polls', async () => {
    const { result, json, progress } = await mcp.call('run_workflow', {
      id: 'wf_sprite_sheet',
      overrides: { character: 'a dwarf miner' },
      output_dir: 'sprites',
    });
    expect(result.isError, JSON.stringify(json)).toBeFalsy();
    const state = await mock.state();
    const run = state.runs.find((record: any) => record.id === json.id);
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
    expect(progress.every((update) => update.total === 3)).toBe(true);
    expect(run.polls).toBe(3);
    expect((json.saved as string[]).length).toBeGreaterThan(0);
    for (const file of json.saved as string[]) expect(file.startsWith(path.join(home.cwd, 'sprites'))).toBe(true);
  });

  it('get_run polls once; wait_run follows a run started elsewhere', async () => {
    const started = (await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { body: {} })).json;
    const once = await mcp.call('get_run', { id: started.id });
    expect(once.json.completedNodes).toBe(1);
    const waited = await mcp.call('wait_run', { id: started.id, output_dir: 'tiles/' });
    expect(waited.result.isError, JSON.stringify(waited.json)).toBeFalsy();
    expect(waited.progress.map((update) => update.progress)).toEqual([2, 3, 4]);
    expect((await mock.state()).runs[0].polls).toBe(4);
  });

  it('wait_run and wait_video on an id the service does not know: not found, no resume, never "paid for and kept"', async () => {
    for (const [tool, id] of [
      ['wait_run', 'run_unknown1'],
      ['wait_video', 'vid_unknown1'],
    ] as const) {
      const waited = await mcp.call(tool, { id });
      expect(waited.result.isError, tool).toBe(true);
      expect(waited.json.error).toMatchObject({ status: 404, job: { id, resume: null } });
      expect(waited.json.error.hint).toContain(`knows no ${tool === 'wait_run' ? 'run' : 'video job'} ${id}`);
      expect(JSON.stringify(waited.json)).not.toMatch(/paid for|kept/);
    }
    expect(await charges()).toEqual([]); // a poll that finds nothing is not charged
  });

  it('list_agents and list_workflows (with overridable nodes)', async () => {
    const agents = await mcp.call('list_agents');
    expect(agents.json.agents.map((agent: any) => agent.id)).toContain('sprite-artist');
    const workflows = await mcp.call('list_workflows');
    const sheet = workflows.json.workflows.find((workflow: any) => workflow.id === 'wf_sprite_sheet');
    expect(sheet).toMatchObject({ nodes: 3, overridableNodes: [{ id: 'character', label: 'Character prompt' }] });
  });

  it('create_video without confirmation charges nothing; with confirm_credits: 180 charges 180 once', async () => {
    const refused = await mcp.call('create_video', { prompt: 'torch flicker' });
    expect(refused.result.isError).toBe(true);
    expect(refused.json.error.message).toContain('180 credits');
    expect(refused.json.error.hint).toContain('"confirm_credits": 180');
    const wrong = await mcp.call('create_video', { prompt: 'torch flicker', confirm_credits: 100 });
    expect(wrong.result.isError).toBe(true);
    expect((await mock.state()).requests).toBe(0);
    expect(await charges()).toEqual([]);

    const created = await mcp.call('create_video', { prompt: 'torch flicker', confirm_credits: 180 });
    expect(created.result.isError, JSON.stringify(created.json)).toBeFalsy();
    expect(created.json.job).toMatchObject({ kind: 'video', id: created.json.id });
    expect(created.json.next).toContain('wait_video');
    expect(await charges()).toEqual([-180]);

    const polled = await mcp.call('get_video', { id: created.json.id });
    expect(polled.json.id).toBe(created.json.id);
    const waited = await mcp.call('wait_video', { id: created.json.id, output: 'fx/' });
    expect(waited.result.isError, JSON.stringify(waited.json)).toBeFalsy();
    expect(waited.progress.length).toBeGreaterThan(0);
    expect(fs.existsSync(waited.json.saved[0])).toBe(true);
    expect((await charges()).filter((amount) => amount === -180)).toHaveLength(1);

    const jobs = await mcp.call('list_jobs');
    expect(jobs.json.jobs.find((job: any) => job.id === created.json.id)).toMatchObject({ state: 'succeeded', resume: null });
  });

  it('create_video without waiting: its `next` hint followed literally saves at the `output` first given (and list_jobs says the same)', async () => {
    fs.mkdirSync(path.join(home.cwd, 'fx'), { recursive: true });
    fs.writeFileSync(path.join(home.cwd, 'fx', 'torch.gif'), 'an older take');
    const created = await mcp.call('create_video', { prompt: 'torch', confirm_credits: 180, output: 'fx/torch.gif', overwrite: true });
    expect(created.result.isError, JSON.stringify(created.json)).toBeFalsy();
    const id = created.json.id as string;
    const expected = { tool: 'wait_video', arguments: { id, output: 'fx/torch.gif', overwrite: true } };
    expect(created.json.resume).toEqual(expected);
    // An agent reads the hint, not the schema: the tool and its arguments, as written there.
    const [, tool, args] = /^Call (\w+) with (\{.*\}) to follow it/.exec(created.json.next as string)!;
    expect({ tool, arguments: JSON.parse(args!) }).toEqual(expected);
    const jobs = await mcp.call('list_jobs');
    expect(jobs.json.jobs.find((job: any) => job.id === id).resumeTool).toEqual(expected);

    const waited = await mcp.call(tool!, JSON.parse(args!));
    expect(waited.result.isError, JSON.stringify(waited.json)).toBeFalsy();
    expect(waited.json.saved).toEqual([path.join(home.cwd, 'fx', 'torch.gif')]);
    expect(
      fs
        .readFileSync(path.join(home.cwd, 'fx', 'torch.gif'))
        .subarray(0, 6)
        .toString('latin1'),
    ).toBe('GIF89a');
    expect(fs.readdirSync(home.cwd).filter((name) => name.startsWith('vid_'))).toEqual([]);
    expect((await charges()).filter((amount) => amount === -180)).toHaveLength(1);

    // Into a folder, without overwrite: the folder, and no `overwrite` to follow.
    const folder = await mcp.call('create_video', { prompt: 'torch', confirm_credits: 180, output: 'fx/' });
    expect(folder.json.resume).toEqual({ tool: 'wait_video', arguments: { id: folder.json.id, output: 'fx/' } });
    expect(folder.json.next).toContain(`{"id": "${folder.json.id}", "output": "fx/"}`);
  });

  it('a failed video reports the refund', async () => {
    await mock.config({ videoOutcome: 'fail' });
    const created = await mcp.call('create_video', { prompt: 'doomed', confirm_credits: 180, wait: true, output: 'fx/' });
    expect(created.result.isError).toBe(true);
    expect(created.json.error).toMatchObject({ code: 'job_failed', jobId: expect.stringMatching(/^vid_/), refunded: true });
    expect(created.json.error.message).toMatch(/refunded/);
    expect(created.json.error.credits).toMatchObject({ charged: expect.any(Number), refunded: 180 });
    const ledger = await charges();
    expect(ledger).toContain(-180);
    expect(ledger).toContain(180);
  });

  it('a long wait returns the job id and a resume hint instead of blocking', async () => {
    await mock.config({ videoSteps: 1000, videoPollAfterMs: 200 });
    const created = await mcp.call('create_video', { prompt: 'slow', confirm_credits: 180 });
    const started = Date.now();
    const waited = await mcp.call('wait_video', { id: created.json.id, max_wait_seconds: 1 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(waited.result.isError).toBeFalsy();
    expect(waited.json).toMatchObject({ state: 'running', job: { id: created.json.id, kind: 'video' }, resume: { tool: 'wait_video' } });
    expect(waited.json.job.resume).toContain(`assetgen video wait ${created.json.id}`);
    const jobs = await mcp.call('list_jobs');
    expect(jobs.json.jobs[0]).toMatchObject({
      id: created.json.id,
      resumeTool: { tool: 'wait_video', arguments: { id: created.json.id } },
    });
    // A wait given an output, cut short: its resume carries that output.
    const into = await mcp.call('wait_video', { id: created.json.id, output: 'later/', max_wait_seconds: 1 });
    expect(into.json.resume).toEqual({ tool: 'wait_video', arguments: { id: created.json.id, output: 'later/' } });
    expect(into.json.hint).toContain(`Call wait_video with {"id": "${created.json.id}", "output": "later/"}`);
  });

  it('faults give tool errors with hints and the server keeps serving', async () => {
    await mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const failed = await mcp.call('list_workflows');
    expect(failed.result.isError).toBe(true);
    expect(failed.json.error).toMatchObject({ code: expect.any(String), status: 500, exitCode: 1 });
    await mock.config({ faults: { rate: 0 }, credits: 0 });
    const poor = await mcp.call('generate_image', { prompt: 'coin', agent: 'icon-forge' });
    expect(poor.result.isError).toBe(true);
    expect(poor.json.error).toMatchObject({ code: 'insufficient_credits', exitCode: 5, hint: expect.any(String) });
    const unknown = await mcp.call('get_video', { id: 'vid_nope' });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.json.error.status).toBe(404);
    // The same error object as `--json` prints for the same failure.
    const cli = jsonError(await runInProcess(['video', 'get', 'vid_nope', '--json'], { env, cwd: home.cwd }));
    const pick = ({ code, message, hint, exitCode, status }: Record<string, unknown>) => ({ code, message, hint, exitCode, status });
    expect(pick(unknown.json.error)).toEqual(pick(cli));
    const empty = await mcp.call('generate_image', { prompt: ' ', agent: 'x' });
    expect(empty.result.isError).toBe(true);
    expect(empty.json.error).toMatchObject({ code: 'usage', message: 'The prompt is empty.' });
    const mistyped = await mcp.call('generate_image', { prompt: 42, agent: 'x' });
    expect(mistyped.result.isError).toBe(true);
    expect(mistyped.json.text).toMatch(/prompt/);
    await mock.config({ credits: 1000 });
    expect((await mcp.call('list_agents')).result.isError).toBeFalsy();
  });

  it('keeps outputs inside the working directory', async () => {
    for (const output of ['../escape.png', '/tmp/escape.png', '-']) {
      const outcome = await mcp.call('generate_image', { prompt: 'x', agent: 'sprite-artist', output });
      expect(outcome.result.isError, output).toBe(true);
      expect(outcome.json.error.code).toBe('usage');
    }
    expect(await charges()).toEqual([]);
  });

  it('build: the plan with dry_run (nothing charged), then the build (each asset charged once), then nothing to do', async () => {
    fs.writeFileSync(
      path.join(home.cwd, 'assetgen.yaml'),
      'assets:\n  - id: crate\n    prompt: a wooden crate\n    agent: sprite-artist\n    out: built/crate.png\n',
    );
    try {
      const call = async (args: Record<string, unknown>) => {
        const result = await mcp.client.callTool({ name: 'build', arguments: args });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        return JSON.parse((result.content as { type: string; text: string }[]).find((c) => c.type === 'text')!.text) as Record<string, any>;
      };
      const plan = await call({ dry_run: true });
      expect(plan.items).toMatchObject([{ id: 'crate', action: 'generate' }]);
      expect(await charges()).toEqual([]);
      const built = await call({});
      expect(built.totals).toMatchObject({ built: 1 });
      expect(fs.existsSync(path.join(home.cwd, 'built', 'crate.png'))).toBe(true);
      expect((await charges()).filter((amount) => amount === -10)).toHaveLength(1);
      expect((await call({})).totals).toMatchObject({ built: 0, unchanged: 1 });
      // max_credits holds as on the command line: 0 charges nothing, though the price is now known.
      fs.appendFileSync(path.join(home.cwd, 'assetgen.yaml'), '  - id: barrel\n    prompt: a barrel\n    agent: sprite-artist\n');
      const before = (await charges()).length;
      const capped = await mcp.call('build', { max_credits: 0 });
      expect(capped.result.isError).toBe(true);
      expect(capped.json.error.code).toBe('credit_cap');
      // The build's result too, as structuredContent (checked against the tool's outputSchema by the client).
      expect(capped.result.structuredContent).toMatchObject({
        items: [
          { id: 'crate', outcome: 'unchanged' },
          { id: 'barrel', outcome: 'capped' },
        ],
        totals: { capped: 1 },
      });
      expect(await charges()).toHaveLength(before);
    } finally {
      fs.rmSync(path.join(home.cwd, 'assetgen.yaml'), { force: true });
      fs.rmSync(path.join(home.cwd, 'assetgen.lock'), { force: true });
    }
  });

  it('answers 20 concurrent tool calls', async () => {
    const calls = Array.from({ length: 20 }, (_, index) =>
      index % 2 ? mcp.call('list_workflows') : mcp.call('generate_image', { prompt: `gem ${index}`, agent: 'icon-forge', output: 'gems/' }),
    );
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((outcome) => !outcome.result.isError)).toBe(true);
    expect(new Set(outcomes.filter((_, index) => index % 2 === 0).map((outcome) => outcome.json.path)).size).toBe(10);
  });
});

describe('assetgen mcp with elicitation', () => {
  it('create_video asks the person, and charges only on yes', async () => {
    let answer: 'accept' | 'decline' = 'decline';
    const messages: string[] = [];
    const session = await startMcp({
      env,
      cwd: home.cwd,
      capabilities: { elicitation: { form: {} } },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          messages.push(String(request.params.message));
          return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
        }),
    });
    try {
      const declined = await session.call('create_video', { prompt: 'torch' });
      expect(declined.result.isError).toBe(true);
      expect(await charges()).toEqual([]);
      answer = 'accept';
      const accepted = await session.call('create_video', { prompt: 'torch' });
      expect(accepted.result.isError, JSON.stringify(accepted.json)).toBeFalsy();
      expect(await charges()).toEqual([-180]);
      expect(messages[0]).toContain('180 credits');
    } finally {
      await session.close();
    }
  });

  it('an answer that is not a clear yes is "not confirmed", as a decline: accept without content, off the schema, a no, a cancel', async () => {
    const declined: Record<string, unknown> = { action: 'decline' };
    const answers = [
      declined,
      { action: 'accept', content: {} },
      { action: 'accept' },
      { action: 'accept', content: { confirm: 'yes' } },
      { action: 'accept', content: { confirm: false } },
      { action: 'cancel' },
    ];
    let answer = declined;
    const session = await startMcp({
      env,
      cwd: home.cwd,
      capabilities: { elicitation: { form: {} } },
      setup: (client) => client.setRequestHandler(ElicitRequestSchema, () => answer as { action: 'decline' }),
    });
    try {
      const errors: unknown[] = [];
      for (answer of answers) {
        const outcome = await session.call('create_video', { prompt: 'torch' });
        expect(outcome.result.isError, JSON.stringify(answer)).toBe(true);
        errors.push(outcome.json.error);
      }
      expect(errors[0]).toMatchObject({
        code: 'usage',
        exitCode: 2,
        message: expect.stringMatching(/^Not confirmed: .*nothing was charged/),
      });
      for (const [index, error] of errors.entries()) expect(error, JSON.stringify(answers[index])).toEqual(errors[0]);
      expect((await mock.state()).requests).toBe(0);
      expect(await charges()).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
