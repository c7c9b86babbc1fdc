// Every tool declares an outputSchema and returns its command's result as structuredContent. The
// SDK's client checks each structuredContent against the schema it listed (a mismatch throws), and
// the JSON text content stays the same object for clients that read text.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIDEO_JOB_COST } from '../../src/api/endpoints.js';
import { stillRunningHint } from '../../src/mcp/call.js';
import { tempHome } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let mcp: McpSession;

beforeAll(async () => {
  mock = await startMock({});
  await mock.config({ videoPollAfterMs: 20 });
  home = tempHome();
  fs.writeFileSync(
    path.join(home.cwd, 'assetgen.yaml'),
    // The mock's images are opaque: `alpha: forbidden` holds (check_assets and build with check answer without error).
    'defaults: { agent: sprite-artist, out: assets/ }\nassets:\n  - id: sword\n    prompt: rusty sword\n    checks: { alpha: forbidden }\n',
  );
  mcp = await startMcp({
    env: { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie },
    cwd: home.cwd,
  });
});
afterAll(async () => {
  await mcp?.close();
  await mock.close();
  home.remove();
});

/** Calls a tool (its structuredContent already checked by the client) and returns that content. */
async function structured(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const { result } = await mcp.call(name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(result.structuredContent).toBeDefined();
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, any>;
}

describe('structured tool results', () => {
  it('every tool declares an outputSchema, and every answer validates against it', async () => {
    const { tools } = await mcp.client.listTools(); // the client caches each tool's validator from here
    expect(tools).toHaveLength(14); // list_takes and pick_variant answer in takes-build.test.ts, through a client that validates the same way
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');

    expect((await structured('list_agents')).source).toBe('service');
    const workflows = await structured('list_workflows');
    expect(workflows.workflows.length).toBeGreaterThan(0);

    const image = await structured('generate_image', { prompt: 'potion', agent: 'sprite-artist', output: 'icons/potion.png' });
    expect(image.media).toEqual([{ path: image.saved[0], format: 'png', width: 128, height: 128 }]);

    const run = await structured('run_workflow', { id: 'wf_sprite_sheet', output_dir: 'sheet' });
    expect(run.saved.length).toBeGreaterThan(0);
    const started = (await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { body: {} })).json as { id: string };
    expect((await structured('get_run', { id: started.id })).id).toBe(started.id);
    expect((await structured('wait_run', { id: started.id, output_dir: 'tiles' })).saved.length).toBeGreaterThan(0);

    const video = await structured('create_video', { prompt: 'torch', confirm_credits: VIDEO_JOB_COST });
    expect(video.job.id).toMatch(/^vid_/);
    expect(video.next).toContain('wait_video');
    expect((await structured('get_video', { id: video.job.id })).id).toBe(video.job.id);
    expect((await structured('wait_video', { id: video.job.id, output: 'fx/' })).saved).toHaveLength(1);

    const jobs = await structured('list_jobs');
    expect(jobs.jobs.map((job: { id: string }) => job.id)).toContain(video.job.id);

    const plan = await structured('build', { dry_run: true });
    expect(plan).toMatchObject({ dryRun: true, items: [{ id: 'sword', status: 'new' }] });
    const built = await structured('build');
    expect(built).toMatchObject({ items: [{ id: 'sword', outcome: 'built' }], totals: { built: 1 } });
    const checkedBuild = await structured('build', { check: true });
    expect(checkedBuild).toMatchObject({ totals: { unchanged: 1 }, checks: { ok: true, rules: { sword: { alpha: 'forbidden' } } } });
    const checked = await structured('check_assets');
    expect(checked).toMatchObject({ ok: true, failures: [], files: [{ id: 'sword', path: 'assets/sword.png', alpha: false, fill: 1 }] });

    // A broken rule: an error naming it with its figure, the whole result carried (and valid) beside it.
    const manifest = path.join(home.cwd, 'assetgen.yaml');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('alpha: forbidden', 'alpha: required'));
    const { result } = await mcp.call('check_assets', { ids: ['sword'] });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text).error).toMatchObject({
      code: 'checks_failed',
      message: expect.stringContaining('assets/sword.png (sword): alpha required, but every pixel is opaque'),
    });
    expect(result.structuredContent).toMatchObject({ ok: false, failures: [{ id: 'sword', rule: 'alpha', figure: false }] });
  });

  it('a wait that outlasts max_wait_seconds answers with the job and how to resume, in the same schema', async () => {
    await mock.config({ videoSteps: 1000 });
    const waiting = await structured('create_video', {
      prompt: 'endless',
      confirm_credits: VIDEO_JOB_COST,
      wait: true,
      max_wait_seconds: 1,
    });
    expect(waiting).toMatchObject({ state: 'running', resume: { tool: 'wait_video' } });
    expect(waiting.hint).toBe(
      `Call wait_video with {"id": "${waiting.job.id}"} to go on waiting (no new charge), or run: ${waiting.job.resume}`,
    );
    expect(waiting.job.resume).toMatch(/^assetgen video wait vid_/);
    // A job without a command line to resume it: the tool alone, no dangling "or run:".
    expect(stillRunningHint({ tool: 'wait_run', arguments: { id: 'run_1', output_dir: 'out/' } }, null)).toBe(
      'Call wait_run with {"id": "run_1", "output_dir": "out/"} to go on waiting (no new charge).',
    );
  });
});
