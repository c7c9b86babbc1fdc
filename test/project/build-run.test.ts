// `assetgen build` for real, in-process against the real mock over loopback: everything built and
// charged once, a second build paying nothing, one changed prompt rebuilding one asset, a hand edit
// kept, the credit cap, videos confirmed, faults survived, and an interrupted build resumed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import { PRICES, WORKFLOWS } from '../../src/mock/index.js';
import { jsonError, parseJson, runCli } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - id: sword
    prompt: rusty sword icon
    agent: icon-forge
    out: assets/icons/sword.png
  - id: shield
    prompt: wooden shield
  - id: potion
    prompt: red potion
  - id: hero
    workflow: wf_sprite_sheet
    set: { character: a dwarf miner }
    out: assets/sprites/hero/
  - id: torch
    video: torch flickering on a wall
    out: assets/fx/
`;
const RUN_COST = PRICES.runPerNode * WORKFLOWS.find((workflow) => workflow.id === 'wf_sprite_sheet')!.nodes.length;

const project = useMockProject({
  mock: { credits: 100_000 },
  config: { credits: 100_000, videoPollAfterMs: 20, videoSteps: 2, faults: { rate: 0 } },
  files: { 'assetgen.yaml': MANIFEST },
});
const build = (args: string[] = [], interrupt?: AbortSignal) => project.run(['build', ...args], { interrupt });
const { ledger } = project;
const charges = async () => (await ledger()).filter((entry) => entry.amount < 0 && !entry.reason.startsWith('poll'));

describe('assetgen build', () => {
  it('builds every asset once, records them in the lock, and a second build pays nothing', async () => {
    const first = await build(['--yes', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const document = parseJson(first);
    expect(document.totals).toMatchObject({ assets: 5, built: 5, failed: 0 });
    const paid = await charges();
    expect(paid.map((entry) => -entry.amount).sort((a, b) => a - b)).toEqual([10, 10, 10, RUN_COST, 180].sort((a, b) => a - b));
    expect(document.credits.charged - document.credits.refunded).toBe(100_000 - ((await project.mock.state()).credits as number));
    // One client serves every asset, and each asset's own spending (its call and its polls) is
    // still told apart: the per-asset figures add up to the ledger, and the images cost theirs.
    const perAsset = Object.fromEntries((document.items as { id: string; credits: number }[]).map((item) => [item.id, item.credits]));
    expect(Object.values(perAsset).reduce((sum, credits) => sum + credits, 0)).toBe(document.credits.charged);
    expect([perAsset.sword, perAsset.shield, perAsset.potion]).toEqual([10, 10, 10]);
    expect(perAsset.hero).toBeGreaterThanOrEqual(RUN_COST);
    expect(perAsset.torch).toBeGreaterThanOrEqual(180);
    const lock = readLock(path.join(project.cwd, 'assetgen.lock'));
    for (const [id, entry] of Object.entries(lock.assets)) expect(entry.credits).toBe(perAsset[id]);
    for (const entry of Object.values(lock.assets)) {
      expect(entry.job).toBeUndefined();
      for (const file of entry.files) expect((await hashFile(path.join(project.cwd, file.path)))?.sha256).toBe(file.sha256);
    }
    expect(lock.assets.sword!.files.map((file) => file.path)).toEqual(['assets/icons/sword.png']);
    expect(lock.assets.torch!.files[0]!.path).toMatch(/^assets\/fx\/torch\.gif$/);

    const again = await build(['--yes', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).totals).toMatchObject({ built: 0, unchanged: 5 });
    expect(await charges()).toHaveLength(paid.length);
  });

  it('a real process at -j 16: every asset once, and no warning from node on stderr (sixteen requests in flight)', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `icon-${i}`);
    writeFiles(project.cwd, {
      'assetgen.yaml': `defaults: { agent: sprite-artist, out: assets/ }\nassets:\n${ids.map((id) => `  - { id: ${id}, prompt: ${id} }`).join('\n')}\n`,
    });
    const result = await runCli(['build', '-j', '16', '--json'], { env: project.env(), cwd: project.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/Warning|\(node:\d+\)/);
    expect(parseJson(result).totals).toMatchObject({ assets: 24, built: 24 });
    expect(await charges()).toHaveLength(24);
  });

  it('rebuilds exactly the asset whose prompt changed, and keeps an output edited by hand', async () => {
    expect((await build(['--yes'])).code).toBe(0);
    const before = (await charges()).length;
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST.replace('wooden shield', 'iron shield'));
    fs.appendFileSync(path.join(project.cwd, 'assets', 'icons', 'sword.png'), 'edited');
    const result = await build(['--json']);
    expect(result.code, result.stderr).toBe(0);
    const outcomes = Object.fromEntries((parseJson(result).items as { id: string; outcome: string }[]).map((i) => [i.id, i.outcome]));
    expect(outcomes).toEqual({ sword: 'kept', shield: 'built', potion: 'unchanged', hero: 'unchanged', torch: 'unchanged' });
    expect(await charges()).toHaveLength(before + 1);
    expect(fs.readFileSync(path.join(project.cwd, 'assets', 'icons', 'sword.png'), 'utf8')).toContain('edited');
    // Piped, the kept asset is named with why, on a line of its own, like every built one.
    const lines = result.stderr.split('\n');
    expect(lines).toContain('- sword  kept: assets/icons/sword.png edited since assetgen wrote it; left alone (--force regenerates)');
    expect(lines.filter((line) => /^✓ shield {2}built assets\/shield\.png/.test(line))).toHaveLength(1);
    // Every file on disk is described: its format and pixel size, read from the file.
    const media = Object.fromEntries((parseJson(result).items as { id: string; media?: unknown[] }[]).map((i) => [i.id, i.media]));
    expect(media.shield).toEqual([{ path: 'assets/shield.png', format: 'png', width: 128, height: 128 }]);
    expect(media.torch).toEqual([{ path: expect.stringMatching(/^assets\/fx\/torch\.gif$/), format: 'gif', width: 96, height: 96 }]);
    const quiet = await build(['-q']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('--prune deletes the unchanged files of an asset gone from the manifest, and forgets it', async () => {
    expect((await build(['--yes'])).code).toBe(0);
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST.replace(/ {2}- id: potion\n {4}prompt: red potion\n/, ''));
    const kept = await build(['--json']);
    expect((parseJson(kept).items as { id: string; status: string }[]).find((item) => item.id === 'potion')?.status).toBe('removed');
    expect(fs.existsSync(path.join(project.cwd, 'assets', 'potion.png'))).toBe(true);
    const pruned = await build(['--prune', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(parseJson(pruned).totals).toMatchObject({ pruned: 1 });
    expect(fs.existsSync(path.join(project.cwd, 'assets', 'potion.png'))).toBe(false);
    expect(readLock(path.join(project.cwd, 'assetgen.lock')).assets.potion).toBeUndefined();
  });

  it('a plan with a video needs --yes without a terminal, and charges nothing without it', async () => {
    const result = await build(['--json']);
    expect(result.code).toBe(2);
    expect(jsonError(result).message).toMatch(/1 video job \(180 credits/);
    expect(await ledger()).toEqual([]);
  });

  it('--max-credits never lets the ledger pass the cap: unknown prices are held back, known ones fill it', async () => {
    // Nothing is recorded yet: every price but the video's is unknown, and the video does not fit.
    const first = await build(['--yes', '--max-credits', '100', '-j', '4', '--json']);
    expect(first.code, first.stderr).toBe(8);
    const caps = (result: Parameters<typeof parseJson>[0]) =>
      Object.fromEntries((parseJson(result).items as { id: string; cap?: string }[]).map((item) => [item.id, item.cap]));
    expect(caps(first)).toEqual({
      sword: 'unknown-cost',
      shield: 'unknown-cost',
      potion: 'unknown-cost',
      hero: 'unknown-cost',
      torch: 'over-cap',
    });
    expect(await ledger()).toEqual([]);
    expect(jsonError(first)).toMatchObject({ code: 'credit_cap', exitCode: 8 });
    expect(first.stderr).toMatch(/--max-credits none/);
    // Learn two prices (no cap), then a cap of 15 fits one more 10-credit image and nothing else.
    expect((await build(['sword', 'shield', '--max-credits', 'none'])).code).toBe(0);
    const before = (await ledger()).length;
    const capped = await build(['--yes', '--max-credits', '15', '-j', '4', '--json']);
    expect(capped.code, capped.stderr).toBe(8);
    expect(caps(capped)).toMatchObject({ potion: undefined, hero: 'unknown-cost', torch: 'over-cap' });
    const spent = -(await ledger()).slice(before).reduce((sum, entry) => sum + entry.amount, 0);
    expect(spent).toBe(10);
    expect(parseJson(capped).totals).toMatchObject({ built: 1, capped: 2, credits: 10 });
  });

  it('with faults injected, builds again until done: every asset built and charged exactly once', async () => {
    await project.mock.config({ faults: { rate: 0.3, kinds: ['500', '503', 'reset', 'truncate'] }, seed: 'build-faults' });
    let last = await build(['--yes', '--concurrency', '2']);
    for (let attempt = 0; attempt < 8 && last.code !== 0; attempt++) last = await build(['--yes', '--concurrency', '2']);
    expect(last.code, last.stderr).toBe(0);
    await project.mock.config({ faults: { rate: 0 } });
    const lock = readLock(path.join(project.cwd, 'assetgen.lock'));
    expect(Object.keys(lock.assets).sort()).toEqual(['hero', 'potion', 'shield', 'sword', 'torch']);
    const paid = (await charges()).map((entry) => entry.reason);
    expect(paid.filter((reason) => reason.startsWith('generate '))).toHaveLength(3);
    expect(paid.filter((reason) => reason.startsWith('run '))).toHaveLength(1);
    expect(paid.filter((reason) => reason.startsWith('video '))).toHaveLength(1);
  });

  it('Ctrl-C during the waits: exit 130, paid jobs in the lock; the next build resumes them with no second charge', async () => {
    await project.mock.config({ videoSteps: 6, videoPollAfterMs: 150 });
    const controller = new AbortController();
    // Ctrl-C once the video job's id is recorded (checked every 20 ms, at most 5 s): it has ~900 ms to go.
    const lockFile = path.join(project.cwd, 'assetgen.lock');
    const watcher = setInterval(() => readLock(lockFile).assets.torch?.job?.jobId && controller.abort(), 20);
    const deadline = setTimeout(() => controller.abort(), 5_000);
    const interrupted = await build(['--yes', '--json'], controller.signal);
    clearInterval(watcher);
    clearTimeout(deadline);
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toMatch(/^- torch {2}interrupted: its paid job is kept in assetgen\.lock {2}\(\d+ credits\)$/m);
    expect(readLock(path.join(project.cwd, 'assetgen.lock')).assets.torch?.job?.jobId).toMatch(/^vid_/);
    await project.mock.config({ videoSteps: 1, videoPollAfterMs: 20 });
    const resumed = await build(['--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((parseJson(resumed).items as { id: string; outcome: string }[]).find((item) => item.id === 'torch')!.outcome).toBe('resumed');
    expect((await charges()).filter((entry) => entry.reason.startsWith('video '))).toHaveLength(1);
    expect(fs.readdirSync(path.join(project.cwd, 'assets', 'fx'))).toEqual(['torch.gif']);
  });
});
