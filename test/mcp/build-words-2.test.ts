// More of build's and the project tools' words over MCP (see build-words.test.ts): a file a build
// leaves alone says how to have it made without `--force` (no tool has it); a capped item's paid
// work carries the build call that resumes it (`resumeTool`) beside its command line; each take of
// list_takes carries its pick_variant call (`pickTool`) beside its command; a manifest above the
// server's working directory is refused in the words of the tool that was called. The command
// line's --json documents and reasons stay as they were. The real `assetgen mcp` (stdio), and the
// built CLI in process, against the bundled mock.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';
import { startMcp, useMcpProject, type McpSession } from '../support/mcp.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: potion, prompt: a potion, variants: 3 }
  - { id: gem-red, prompt: a red gem }
  - { id: gem-blue, prompt: a blue gem }
  - { id: shield, prompt: a shield, post: [{ resize: 64x64 }] }
  - { id: hand, prompt: a hand-drawn map, out: assets/hand.png }
  - { id: gems, sheet: { from: [gem-red, gem-blue] }, out: assets/gems.png }
  - { id: smoke, video: smoke rising, out: assets/fx/ }
`;

const project = useMcpProject(MANIFEST, 100_000);

/** The command line's way of having a file made anyway, which no tool takes. */
const FORCE_FLAG = /\(--force /;

/** Over MCP: how to have a file made that a build leaves alone (the person's terminal, or removing it). */
const inTerminal = (id: string) => `ask the person to run \`assetgen build ${id} --force\` in a terminal (no tool regenerates by force)`;

type Item = { id: string; outcome?: string; action?: string; reasons?: string[]; why?: string[]; resume?: string; resumeTool?: unknown };
const itemOf = (json: Record<string, any>, id: string): Item => (json.items as Item[]).find((item) => item.id === id)!;
const reasonsOf = (item: Item): string[] => item.reasons ?? item.why ?? [];

describe('over MCP', () => {
  beforeAll(async () => {
    await project.mock.config({ videoPollAfterMs: 20, videoSteps: 2 });
    // Someone's own file where `hand` goes, before its first build.
    fs.mkdirSync(path.join(project.home.cwd, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(project.home.cwd, 'assets', 'hand.png'), 'drawn by hand');
  });

  it('a file the build leaves alone says how to have it made, never `--force` (dry run and build)', async () => {
    const foreign = `assets/hand.png exists and assetgen did not make it: left alone; to replace it, remove the file or ${inTerminal('hand')}`;
    const planned = await project.mcp.call('build', { ids: ['hand'], dry_run: true });
    expect(planned.result.isError, JSON.stringify(planned.json)).toBeFalsy();
    expect(reasonsOf(itemOf(planned.json, 'hand')).at(-1)).toBe(foreign);

    const built = await project.mcp.call('build', { ids: ['potion', 'gem-*', 'shield', 'hand', 'gems'] });
    expect(built.result.isError, JSON.stringify(built.json)).toBeFalsy();
    expect(itemOf(built.json, 'hand')).toMatchObject({ outcome: 'kept' });
    expect(reasonsOf(itemOf(built.json, 'hand')).at(-1)).toBe(foreign);

    // A built output, a kept original (of post steps, its output gone) and a packed sheet, edited by hand.
    const gem = itemOf(built.json, 'gem-red') as Item & { files: string[] };
    fs.appendFileSync(path.join(project.home.cwd, gem.files[0]), 'edited');
    fs.appendFileSync(path.join(project.home.cwd, '.assetgen', 'originals', 'shield', 'shield.png'), 'edited');
    fs.rmSync(path.join(project.home.cwd, 'assets', 'shield.png'));
    fs.appendFileSync(path.join(project.home.cwd, 'assets', 'gems.png'), 'edited');
    const edited = await project.mcp.call('build', { dry_run: true });
    expect(reasonsOf(itemOf(edited.json, 'gem-red')).at(-1)).toBe(`left alone; to regenerate it, ${inTerminal('gem-red')}`);
    expect(reasonsOf(itemOf(edited.json, 'shield')).at(-1)).toBe(
      `.assetgen/originals/shield/shield.png (the kept original) edited since assetgen wrote it: left alone; to regenerate it, ${inTerminal('shield')}`,
    );
    expect(reasonsOf(itemOf(edited.json, 'gems')).at(-1)).toBe(`left alone; to re-pack it, ${inTerminal('gems')}`);
    const texts = [planned.json, built.json, edited.json].flatMap((json) => (json.items as Item[]).flatMap(reasonsOf));
    expect(texts.filter((text) => FORCE_FLAG.test(text))).toEqual([]);
  });

  it('a capped item with paid work to resume carries `resumeTool`: the build call, which resumes it', async () => {
    const capped = await project.mcp.call('build', { ids: ['smoke'], max_credits: 180, confirm_videos: true });
    const smoke = itemOf(capped.json.error ? capped.result.structuredContent! : capped.json, 'smoke');
    expect(smoke).toMatchObject({ outcome: 'capped', resume: expect.stringMatching(/^assetgen build smoke -f /) });
    expect(smoke.resumeTool).toEqual({ tool: 'build', arguments: { ids: ['smoke'] } });

    const { tool, arguments: args } = smoke.resumeTool as { tool: string; arguments: Record<string, unknown> };
    const resumed = await project.mcp.call(tool, args);
    expect(resumed.result.isError, JSON.stringify(resumed.json)).toBeFalsy();
    expect(itemOf(resumed.json, 'smoke')).toMatchObject({ outcome: 'resumed' });
    expect(itemOf(resumed.json, 'smoke').resumeTool).toBeUndefined();
  });

  it("list_takes: each take carries `pickTool`, pick_variant's call, beside its command `pick`", async () => {
    // Built by the first test already (then up to date, free): built here for this test on its own.
    expect((await project.mcp.call('build', { ids: ['potion'] })).result.isError).toBeFalsy();
    const listed = await project.mcp.call('list_takes', { id: 'potion' });
    expect(listed.result.isError, JSON.stringify(listed.json)).toBeFalsy();
    const takes = listed.json.takes as { k: number; pick: string; pickTool: { tool: string; arguments: Record<string, unknown> } }[];
    expect(takes.map((take) => take.k)).toEqual([1, 2, 3]);
    for (const take of takes) {
      expect(take.pick).toBe(`assetgen pick potion ${take.k}`);
      expect(take.pickTool).toEqual({ tool: 'pick_variant', arguments: { id: 'potion', take: take.k } });
    }
    const { tool, arguments: args } = takes[1].pickTool;
    const picked = await project.mcp.call(tool, args);
    expect(picked.result.isError, JSON.stringify(picked.json)).toBeFalsy();
    expect(picked.json).toMatchObject({ id: 'potion', picked: 2 });
  });
});

describe('a manifest above the working directory, refused in the words of the tool called', () => {
  let mcp: McpSession;
  beforeAll(async () => {
    const wd = path.join(project.home.cwd, 'wd');
    fs.mkdirSync(wd, { recursive: true });
    mcp = await startMcp({
      env: { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_API_KEY: project.mock.apiKey },
      cwd: wd,
    });
  });
  afterAll(() => mcp?.close());

  it.each([
    ['check_assets', {}, 'check_assets would read the project there.'],
    ['list_takes', { id: 'potion' }, 'list_takes would write its contact sheet there.'],
    ['pick_variant', { id: 'potion', take: 1 }, 'pick_variant would write its output there.'],
    ['build', { dry_run: true }, 'the build would write there.'],
  ])('%s', async (tool, args, words) => {
    const { result, json } = await mcp.call(tool, args);
    expect(result.isError).toBe(true);
    expect(json.error.code).toBe('usage');
    expect(json.error.message).toMatch(/^The nearest assetgen\.yaml is .*, outside the server's working directory \(.*\): /);
    expect(json.error.message.endsWith(`: ${words}`), json.error.message).toBe(true);
  });
});

describe('the command line keeps its words and documents', () => {
  let own: ReturnType<typeof tempHome>;
  beforeAll(() => {
    own = tempHome();
    // Another prompt for the video: the same one would get the MCP project's job back (the same idempotency key).
    fs.writeFileSync(path.join(own.cwd, 'assetgen.yaml'), MANIFEST.replace('smoke rising', 'smoke rising on the command line'));
    fs.mkdirSync(path.join(own.cwd, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(own.cwd, 'assets', 'hand.png'), 'drawn by hand');
  });
  afterAll(() => own.remove());
  const cli = (args: string[]) =>
    runInProcess([...args, '--json'], {
      env: { ...own.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_API_KEY: project.mock.apiKey },
      cwd: own.cwd,
    });

  it('`--force` in the reasons, `resume` and `pick` commands only', async () => {
    const built = parseJson(await cli(['build', 'potion', 'gem-*', 'shield', 'hand', 'gems']));
    expect(reasonsOf(itemOf(built, 'hand')).at(-1)).toBe(
      'assets/hand.png exists and assetgen did not make it: left alone (--force replaces it)',
    );
    const gem = itemOf(built, 'gem-red') as Item & { files: string[] };
    fs.appendFileSync(path.join(own.cwd, gem.files[0]), 'edited');
    fs.appendFileSync(path.join(own.cwd, '.assetgen', 'originals', 'shield', 'shield.png'), 'edited');
    fs.rmSync(path.join(own.cwd, 'assets', 'shield.png'));
    fs.appendFileSync(path.join(own.cwd, 'assets', 'gems.png'), 'edited');
    const edited = parseJson(await cli(['build', '--dry-run']));
    expect(reasonsOf(itemOf(edited, 'gem-red')).at(-1)).toBe('left alone (--force regenerates)');
    expect(reasonsOf(itemOf(edited, 'shield')).at(-1)).toBe(
      '.assetgen/originals/shield/shield.png (the kept original) edited since assetgen wrote it: left alone (--force regenerates)',
    );
    expect(reasonsOf(itemOf(edited, 'gems')).at(-1)).toBe('left alone (--force re-packs)');

    const takes = parseJson(await cli(['takes', 'potion']));
    expect(takes.takes[0]).toMatchObject({ k: 1, pick: 'assetgen pick potion 1' });
    expect(takes.takes[0].pickTool).toBeUndefined();

    const capped = parseJson(await cli(['build', 'smoke', '--max-credits', '180', '--yes']));
    expect(itemOf(capped, 'smoke')).toMatchObject({ outcome: 'capped', resume: expect.stringMatching(/^assetgen build smoke/) });
    expect(itemOf(capped, 'smoke').resumeTool).toBeUndefined();
  });
});
