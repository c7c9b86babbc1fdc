// Sheets in a sharded build (docs/build.md "Shards", docs/ci.md): a sheet whose inputs other shards
// make is left out of every shard and packed by the merge job's `assetgen build` after `lock merge`,
// once, for 0 credits; a sheet none of whose inputs another shard makes is packed by its own shard.
// And a sheet an unbuilt input leaves unpacked is `skipped` (not `kept`, which is for hand edits).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { assetgenCommands, tempDir, writeFiles } from './helpers.js';

/**
 * The reviewer's manifest: twelve icons from a matrix, a gem, a workflow, a video, and a sheet of the
 * icons and the gem; with prices declared, so that docs/ci.md's capped shard builds run on a first build.
 */
const MANIFEST = (
  options: { padding?: number; gem?: string } = {},
) => `prices: { agents: { icon-forge: 10 }, workflows: { wf_sprite_sheet: 15 } }
defaults: { agent: icon-forge, out: assets/icons/ }
assets:
  - id: icon-\${n}
    prompt: icon number \${n}
    matrix:
      n: [${Array.from({ length: 12 }, (_, i) => `'${i + 1}'`).join(', ')}]
  - { id: gem, prompt: ${options.gem ?? 'a blue gem'} }
  - id: hero
    workflow: wf_sprite_sheet
    set: { character: a dwarf miner }
    out: assets/sprites/hero/
  - id: torch
    video: torch flickering on a dungeon wall
    out: assets/fx/
  - id: icons
    sheet: { from: ["icon-*", gem], padding: ${options.padding ?? 2} }
    out: assets/icons.png
`;

const INPUTS = [...Array.from({ length: 12 }, (_, i) => `icon-${i + 1}`), 'gem'];
const SHEET_SHARD = shardOf('icons', 4);

const project = useMockProject({
  mock: { credits: 100_000 },
  config: { credits: 100_000, faults: { rate: 0 }, videoPollAfterMs: 20 },
});

const DOC = fs.readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
const blocks = [...DOC.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => parse(match[1]!) as Record<string, any>);
const github = blocks.find((block) => block.jobs?.merge && block.jobs?.build?.strategy)!;
const gitlab = blocks.find((block) => block['merge-locks'])!;

const stepsOf = (job: { steps: { run?: string }[] }) => job.steps.map((step) => step.run ?? '').join('\n');

type Item = { id: string; status: string; action?: string; outcome?: string; reason?: string; why?: string[] };
const itemsOf = (result: CliResult): Record<string, Item> =>
  Object.fromEntries((parseJson(result).items as Item[]).map((item) => [item.id, item]));
const dryRun = async (args: string[] = [], cwd = project.cwd) => {
  const result = await project.run(['build', '--dry-run', '--json', ...args], { cwd });
  expect(result.code, result.stderr).toBe(0);
  return itemsOf(result);
};

/** Copies `from`'s files (a shard's artifact) into `to`, as download-artifact with merge-multiple does. */
function copyTree(from: string, to: string): void {
  if (!fs.existsSync(from)) return;
  for (const entry of fs.readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const source = path.join(entry.parentPath, entry.name);
    const target = path.join(to, path.relative(from, source));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
  }
}

/** Shard k's job of docs/ci.md's GitHub workflow, in a workspace of its own: its assetgen command as written (`extra` appended). */
async function shardJob(k: number, cwd: string, extra: string[] = []): Promise<CliResult> {
  writeFiles(cwd, { 'assetgen.yaml': MANIFEST() });
  const [command] = assetgenCommands(stepsOf(github.jobs.build).replaceAll('${{ matrix.shard }}', String(k)));
  expect(command).toEqual(expect.arrayContaining(['--shard', `${k}/4`, '--lock-out', `shard-${k}.lock`]));
  return project.run([...command!, ...extra], { cwd });
}

/** The merge job in a fresh workspace: every shard's artifact (its lock and assets), then its assetgen commands as written. */
async function mergeJob(workspaces: readonly string[]): Promise<{ cwd: string; results: CliResult[] }> {
  const cwd = tempDir();
  writeFiles(cwd, { 'assetgen.yaml': MANIFEST() });
  for (const [index, workspace] of workspaces.entries()) {
    copyTree(path.join(workspace, 'assets'), path.join(cwd, 'assets'));
    fs.copyFileSync(path.join(workspace, `shard-${index + 1}.lock`), path.join(cwd, `shard-${index + 1}.lock`));
  }
  const results: CliResult[] = [];
  for (const command of assetgenCommands(stepsOf(github.jobs.merge))) results.push(await project.run(command, { cwd }));
  return { cwd, results };
}

const charges = async (): Promise<number> => (await project.ledger()).filter((entry) => entry.amount < 0).length;

describe('a sheet whose inputs fall in other shards', () => {
  it('docs/ci.md as written: four shard jobs in their own workspaces, then the merge job packs the sheet once, for 0 credits', async () => {
    expect(INPUTS.some((id) => shardOf(id, 4) !== SHEET_SHARD)).toBe(true);
    const workspaces = [1, 2, 3, 4].map(() => tempDir());
    for (const [index, cwd] of workspaces.entries()) {
      const k = index + 1;
      const result = await shardJob(k, cwd);
      expect(result.code, result.stderr).toBe(0);
      const document = parseJson(result);
      // No shard packs it, none calls it stale or failed, none keeps it: it is the merge job's.
      expect(document.items.map((item: Item) => item.id)).not.toContain('icons');
      expect(document.staleSheets).toBeUndefined();
      expect(result.stderr).not.toContain('left stale');
      expect(result.stderr).not.toMatch(/^. icons /m);
      expect(readLock(path.join(cwd, `shard-${k}.lock`)).assets.icons).toBeUndefined();
    }
    const before = await charges();
    const merge = await mergeJob(workspaces);
    expect(merge.results.length).toBeGreaterThan(1);
    for (const result of merge.results) expect(result.code, result.stderr).toBe(0);
    // Packed from every input, with no paid call; the project is then up to date.
    expect(await charges()).toBe(before);
    const lock = readLock(path.join(merge.cwd, 'assetgen.lock'));
    expect(lock.assets.icons?.files.map((file) => file.path)).toEqual(['assets/icons.json', 'assets/icons.png']);
    expect(lock.assets.icons?.inputs).toHaveLength(INPUTS.length);
    const data = JSON.parse(fs.readFileSync(path.join(merge.cwd, 'assets/icons.json'), 'utf8'));
    expect(Object.keys(data.frames).sort()).toEqual([...INPUTS].sort());
    const after = await dryRun([], merge.cwd);
    expect(Object.values(after).filter((item) => item.action !== 'none')).toEqual([]);
    expect(after.icons).toMatchObject({ status: 'up-to-date', action: 'none' });
  });

  it('a shard job that failed: the merge job pays for nothing, holds back what that shard left (exit 8) and skips the sheet; the rerun packs it', async () => {
    const workspaces = [1, 2, 3, 4].map(() => tempDir());
    // The shard of the gem (an input of the sheet) held back by its cap: its job fails, its lock is uploaded.
    const failing = shardOf('gem', 4);
    for (const [index, cwd] of workspaces.entries()) {
      const k = index + 1;
      const result = await shardJob(k, cwd, k === failing ? ['--max-credits', '0'] : []);
      expect(result.code, result.stderr).toBe(k === failing ? 8 : 0);
    }
    const before = await charges();
    const merge = await mergeJob(workspaces);
    const [join, pack] = merge.results;
    expect(join!.code, join!.stderr).toBe(0);
    expect(pack!.code, pack!.stderr).toBe(8);
    expect(pack!.stderr).toMatch(/- gem {2}capped: /);
    expect(pack!.stderr).toMatch(/^- icons {2}skipped: .*\bgem not built in this build: not packed$/m);
    expect(await charges()).toBe(before);
    expect(readLock(path.join(merge.cwd, 'assetgen.lock')).assets.icons).toBeUndefined();
    expect(fs.existsSync(path.join(merge.cwd, 'assets/icons.png'))).toBe(false);
    // Re-run failed jobs: that shard as written, then the merge job again; the sheet is packed.
    const rerun = await shardJob(failing, workspaces[failing - 1]!);
    expect(rerun.code, rerun.stderr).toBe(0);
    const again = await mergeJob(workspaces);
    for (const result of again.results) expect(result.code, result.stderr).toBe(0);
    expect(readLock(path.join(again.cwd, 'assetgen.lock')).assets.icons?.files).toHaveLength(2);
    expect(Object.values(await dryRun([], again.cwd)).filter((item) => item.action !== 'none')).toEqual([]);
  });

  it("docs/ci.md's merge jobs never pay: the build after `lock merge` is capped at 0 credits, and its files are kept even when it fails", () => {
    const merge = github.jobs.merge;
    const [join, pack] = assetgenCommands(stepsOf(merge));
    expect(join!.slice(0, 2)).toEqual(['lock', 'merge']);
    expect(pack!.slice(0, 1)).toEqual(['build']);
    expect(pack!.join(' ')).toContain('--max-credits 0');
    expect(pack).not.toContain('--shard');
    expect(merge.steps.find((step: { uses?: string }) => step.uses?.startsWith('actions/upload-artifact')).if).toBe('always()');
    const script = (gitlab['merge-locks'].script as string[]).join('\n');
    const [gitlabJoin, gitlabPack] = assetgenCommands(script);
    expect(gitlabJoin!.slice(0, 2)).toEqual(['lock', 'merge']);
    expect(gitlabPack!.slice(0, 1)).toEqual(['build']);
    expect(gitlabPack!.join(' ')).toContain('--max-credits 0');
    expect(gitlab['merge-locks'].artifacts.when).toBe('always');
  });

  it('is left out of every shard while another shard makes one of its inputs; packed by its own shard when none does', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': MANIFEST() });
    const fresh = await Promise.all([1, 2, 3, 4].map((k) => dryRun(['--shard', `${k}/4`])));
    for (const plan of fresh) expect(plan.icons).toBeUndefined();
    // One shard of one: nothing is made elsewhere, so it packs the sheet after its inputs.
    expect((await dryRun(['--shard', '1/1'])).icons).toMatchObject({ status: 'new', action: 'reprocess' });
    expect((await dryRun()).icons).toMatchObject({ status: 'new', action: 'reprocess' });

    const all = await project.run(['build', '--yes', '--max-credits', 'none', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(itemsOf(all).icons).toMatchObject({ outcome: 'built' });

    // Only the sheet changed: its own shard packs it (its inputs are up to date everywhere).
    writeFiles(project.cwd, { 'assetgen.yaml': MANIFEST({ padding: 4 }) });
    for (const k of [1, 2, 3, 4]) {
      const plan = await dryRun(['--shard', `${k}/4`]);
      if (k === SHEET_SHARD) expect(plan.icons).toMatchObject({ status: 'changed', action: 'reprocess' });
      else expect(plan.icons).toBeUndefined();
    }
    const own = await project.run(['build', '--json', '--shard', `${SHEET_SHARD}/4`, '--lock-out', 'own.lock']);
    expect(own.code, own.stderr).toBe(0);
    expect(itemsOf(own).icons).toMatchObject({ outcome: 'built', credits: 0 });

    // An input of another shard changes (the gem): that shard makes it, and no shard packs the sheet.
    const gemShard = shardOf('gem', 4);
    expect(gemShard).not.toBe(SHEET_SHARD);
    writeFiles(project.cwd, { 'assetgen.yaml': MANIFEST({ padding: 4, gem: 'a red gem' }) });
    fs.copyFileSync(path.join(project.cwd, 'own.lock'), path.join(project.cwd, 'assetgen.lock'));
    for (const k of [1, 2, 3, 4]) expect((await dryRun(['--shard', `${k}/4`])).icons, `shard ${k}`).toBeUndefined();
    const theirs = await project.run(['build', '--json', '--shard', `${gemShard}/4`, '--lock-out', 'theirs.lock']);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(itemsOf(theirs).gem).toMatchObject({ outcome: 'built' });
    expect(itemsOf(theirs).icons).toBeUndefined();
    expect(parseJson(theirs).staleSheets).toBeUndefined();
    // Its lock joined, the merge job's build packs the sheet with the new gem, for 0 credits.
    const joined = await project.run(['lock', 'merge', 'theirs.lock']);
    expect(joined.code, joined.stderr).toBe(0);
    const packed = await project.run(['build', '--yes', '--max-credits', '0', '--json']);
    expect(packed.code, packed.stderr).toBe(0);
    expect(itemsOf(packed).icons).toMatchObject({ outcome: 'built', credits: 0 });
    expect(parseJson(packed).totals).toMatchObject({ built: 1, credits: 0 });
  });
});

describe('a sheet an unbuilt input leaves unpacked', () => {
  it('is skipped, in --json, its totals and the summary line; a hand-edited atlas is still kept', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': MANIFEST() });
    const one = await project.run(['build', '--yes', 'icon-1', '--json']);
    expect(one.code, one.stderr).toBe(0);
    const document = parseJson(one);
    const icons = itemsOf(one).icons!;
    expect(icons).toMatchObject({ outcome: 'skipped', status: 'new' });
    expect(icons.reason).toMatch(/not built yet: not packed$/);
    expect(document.totals).toMatchObject({ built: 1, kept: 0, skipped: 1 });
    expect(document.staleSheets).toEqual([{ id: 'icons', reason: icons.reason }]);
    const human = await project.run(['build', '--yes', 'icon-1']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toMatch(/skipped 1; 0 credits\./);
    expect(human.stderr).not.toMatch(/kept|edited by hand/);
    expect(human.stderr).toContain('warning: sheet icons left stale: fed by icon-1; icon-2, ');
    expect(fs.existsSync(path.join(project.cwd, 'assets/icons.png'))).toBe(false);

    // Everything built, then the atlas touched up by hand: that one is kept, as docs/build.md says.
    const all = await project.run(['build', '--yes', '--max-credits', 'none', '--json']);
    expect(all.code, all.stderr).toBe(0);
    fs.appendFileSync(path.join(project.cwd, 'assets/icons.png'), 'touched');
    const again = await project.run(['build', '--yes', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(itemsOf(again).icons).toMatchObject({ outcome: 'kept', status: 'edited' });
    expect(parseJson(again).totals).toMatchObject({ kept: 1, skipped: 0 });
  });
});
