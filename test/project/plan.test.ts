// Planning over real files: each status and action, --force and prune, selection and shards, the
// credit estimate, and re-planning from the lock on disk after a crash mid-build.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFiles, serviceId, specHash } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import type { Lock, Manifest } from '../../src/pipeline/records.js';
import { LockWriter } from '../../src/pipeline/writer.js';
import { parseManifest } from '../../src/pipeline/manifest.js';
import { estimateFor, hashProjectFiles, planBuild, type PlanOptions } from '../../src/pipeline/plan.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { EXAMPLE, tempDir, writeFiles } from './helpers.js';

const SERVICE = 'assets.example.com';

/** A project with the example manifest, where `built` assets have been built (files + lock). */
async function project(built: string[] = []): Promise<{ root: string; manifest: Manifest; writer: LockWriter }> {
  const root = tempDir();
  writeFiles(root, { 'assetgen.yaml': EXAMPLE });
  const manifest = parseManifest(EXAMPLE, { file: path.join(root, 'assetgen.yaml') });
  const writer = LockWriter.open(path.join(root, 'assetgen.lock'));
  const outputs: Record<string, string[]> = {
    sword: ['assets/icons/sword.png'],
    hero: ['assets/sprites/hero/hero-idle.png', 'assets/sprites/hero/hero-walk.png'],
    torch: ['assets/fx/torch.gif'],
  };
  for (const id of built) await build(root, manifest, writer, id, outputs[id]!);
  return { root, manifest, writer };
}

async function build(root: string, manifest: Manifest, writer: LockWriter, id: string, files: string[], credits = 7): Promise<void> {
  const asset = manifest.assets.find((a) => a.id === id)!;
  await writer.submitted(id, {
    spec: specHash(asset, SERVICE),
    kind: asset.kind,
    agent: asset.agent,
    workflow: asset.workflow,
    idempotencyKey: `k-${id}`,
  });
  writeFiles(root, Object.fromEntries(files.map((file) => [file, `bytes of ${file}`])));
  await writer.finished(id, { files: await describeFiles(root, files), credits: asset.kind === 'video' ? 180 : credits });
}

async function plan(root: string, manifest: Manifest, options: Partial<PlanOptions> = {}) {
  const lock = readLock(path.join(root, 'assetgen.lock'));
  return planBuild(manifest, lock, await hashProjectFiles(manifest, lock), { service: SERVICE, ...options });
}

const summary = (p: Awaited<ReturnType<typeof plan>>) =>
  Object.fromEntries(p.items.map((item) => [item.id, `${item.status}/${item.action}`]));

describe('planBuild', () => {
  it('plans everything new on a fresh project, with the estimate', async () => {
    const { root, manifest } = await project();
    const p = await plan(root, manifest);
    expect(summary(p)).toEqual({ sword: 'new/generate', hero: 'new/generate', torch: 'new/generate' });
    expect(p.estimate).toEqual({ credits: 180, unknown: ['sword', 'hero'] });
  });

  it('is up to date after a build, and estimates from the lock’s last charges', async () => {
    const { root, manifest } = await project(['sword', 'hero', 'torch']);
    const p = await plan(root, manifest);
    expect(summary(p)).toEqual({ sword: 'up-to-date/none', hero: 'up-to-date/none', torch: 'up-to-date/none' });
    expect(p.estimate).toEqual({ credits: 0, unknown: [] });
    const lock = readLock(path.join(root, 'assetgen.lock'));
    expect(estimateFor({ kind: 'image', agent: 'icon-forge' }, lock)).toBe(7);
    expect(estimateFor({ kind: 'image', agent: 'tile-smith' }, lock)).toBeNull();
    expect(estimateFor({ kind: 'workflow', workflow: 'wf_sprite_sheet' }, lock)).toBe(7);
    expect(estimateFor({ kind: 'video' }, lock)).toBe(180);
  });

  it('sees a changed spec, a changed service and a moved output as changed', async () => {
    const { root } = await project(['sword', 'hero', 'torch']);
    const edited = EXAMPLE.replace('rusty sword icon', 'shiny sword icon')
      .replace('a dwarf miner', 'an elf')
      .replace('assets/fx/', 'assets/video/');
    const manifest = parseManifest(edited, { file: path.join(root, 'assetgen.yaml') });
    const p = await plan(root, manifest);
    // The moved video's file is as the lock records it: moved to its new out, free (never 180 again).
    expect(summary(p)).toEqual({ sword: 'changed/generate', hero: 'changed/generate', torch: 'changed/move' });
    const torch = p.items.find((item) => item.id === 'torch')!;
    expect(torch.reasons).toEqual([
      'out moved (from assets/fx/torch.gif)',
      'moved to assets/video/torch.gif (the bytes assetgen.lock records), no paid call',
    ]);
    expect([torch.moves, torch.estimate]).toEqual([[{ from: 'assets/fx/torch.gif', to: 'assets/video/torch.gif' }], 0]);
    expect(p.estimate).toEqual({ credits: 7 + 7, unknown: [] });
    // Its file gone (and no kept original): asked for again, said why.
    fs.rmSync(path.join(root, 'assets/fx/torch.gif'));
    const gone = (await plan(root, manifest)).items.find((item) => item.id === 'torch')!;
    expect([gone.status, gone.action, gone.reasons.slice(0, 2)]).toEqual([
      'changed',
      'generate',
      ['out moved (from assets/fx/torch.gif)', 'assets/fx/torch.gif missing'],
    ]);
    const same = parseManifest(EXAMPLE, { file: path.join(root, 'assetgen.yaml') });
    expect(new Set(Object.values(summary(await plan(root, same, { service: 'staging.example.com' }))))).toEqual(
      new Set(['changed/generate']),
    );
  });

  it('without specs to compare (no service known), judges by the files alone', async () => {
    const { root } = await project(['sword', 'hero', 'torch']);
    const edited = EXAMPLE.replace('rusty sword icon', 'shiny sword icon').replace('assets/fx/', 'assets/video/');
    const manifest = parseManifest(edited, { file: path.join(root, 'assetgen.yaml') });
    fs.rmSync(path.join(root, 'assets/sprites/hero/hero-walk.png'));
    const blind = await plan(root, manifest, { service: '', compareSpecs: false });
    expect(summary(blind)).toEqual({ sword: 'up-to-date/none', hero: 'missing/generate', torch: 'changed/move' });
    expect(summary(await plan(root, manifest)).sword).toBe('changed/generate');
  });

  it('leaves hand-edited outputs alone (regenerated only with force) and regenerates missing ones', async () => {
    const { root, manifest } = await project(['sword', 'hero', 'torch']);
    fs.writeFileSync(path.join(root, 'assets/icons/sword.png'), 'touched up by hand');
    fs.rmSync(path.join(root, 'assets/sprites/hero/hero-walk.png'));
    const p = await plan(root, manifest);
    expect(summary(p)).toEqual({ sword: 'edited/keep', hero: 'missing/generate', torch: 'up-to-date/none' });
    expect(p.items[0]!.files).toEqual([{ path: 'assets/icons/sword.png', state: 'edited' }]);
    expect(p.items[0]!.reasons.at(-1)).toContain('--force');
    // A missing file is asked for again with the key its build sent (a replay may be that build's
    // charge, not this one's); --force is a new generation, a new key.
    const hero = p.items.find((item) => item.id === 'hero')!;
    expect([hero.generation, hero.reusesKey]).toEqual([1, true]);
    const forced = await plan(root, manifest, { force: true });
    expect(summary(forced).sword).toBe('edited/generate');
    const forcedHero = forced.items.find((item) => item.id === 'hero')!;
    expect([forcedHero.generation, forcedHero.reusesKey]).toEqual([2, undefined]);
  });

  it('never plans to generate over a file assetgen did not make, unless --force', async () => {
    const { root, manifest } = await project(['torch']);
    writeFiles(root, { 'assets/icons/sword.png': 'drawn by hand before the manifest existed' });
    const p = await plan(root, manifest);
    expect(summary(p)).toMatchObject({ sword: 'new/keep', hero: 'new/generate' });
    expect(p.items[0]!.reasons.at(-1)).toBe('assets/icons/sword.png exists and assetgen did not make it: left alone (--force replaces it)');
    expect(p.items[0]!.estimate).toBe(0);
    expect(summary(await plan(root, manifest, { force: true })).sword).toBe('new/generate');
    // Moving an output onto someone's file is held back the same way.
    writeFiles(root, { 'assets/fx/clip.gif': 'a hand-made clip' });
    const moved = parseManifest(EXAMPLE.replace('out: assets/fx/', 'out: assets/fx/clip.gif'), { file: path.join(root, 'assetgen.yaml') });
    expect(summary(await plan(root, moved)).torch).toBe('changed/keep');
  });

  it('resumes what was in flight when a build crashed, by job id or by idempotency key', async () => {
    const { root, manifest, writer } = await project(['sword']);
    const hero = manifest.assets[1]!;
    const torch = manifest.assets[2]!;
    await writer.submitted('hero', { spec: specHash(hero, SERVICE), kind: 'workflow', workflow: hero.workflow, idempotencyKey: 'k-hero' });
    await writer.submitted('torch', { spec: specHash(torch, SERVICE), kind: 'video', idempotencyKey: 'k-torch', jobId: 'vid_9' });
    // The process dies here (a dead process's claim is taken over: writer.test.ts); the next run
    // plans from what is on disk.
    const p = await plan(root, manifest);
    expect(summary(p)).toEqual({ sword: 'up-to-date/none', hero: 'in-flight/resume', torch: 'in-flight/resume' });
    expect(p.items[1]!.job).toMatchObject({ idempotencyKey: 'k-hero' });
    expect(p.items[1]!.job!.jobId).toBeUndefined();
    expect(p.items[2]!.job).toMatchObject({ jobId: 'vid_9', idempotencyKey: 'k-torch' });
    expect(p.estimate.credits).toBe(0);
    // Finished after the restart: up to date.
    await writer.close();
    const resumed = LockWriter.open(path.join(root, 'assetgen.lock'));
    writeFiles(root, { 'assets/fx/torch.gif': 'GIF' });
    await resumed.finished('torch', { files: await describeFiles(root, ['assets/fx/torch.gif']), credits: 180 });
    expect(summary(await plan(root, manifest)).torch).toBe('up-to-date/none');
  });

  it('reports assets gone from the manifest; prune deletes only unchanged files assetgen made', async () => {
    const { root } = await project(['sword', 'hero', 'torch']);
    fs.writeFileSync(path.join(root, 'assets/sprites/hero/hero-idle.png'), 'edited');
    const manifest = parseManifest(EXAMPLE.split('  - id: hero')[0]!, { file: path.join(root, 'assetgen.yaml') });
    const report = await plan(root, manifest);
    expect(summary(report)).toEqual({ sword: 'up-to-date/none', hero: 'removed/keep', torch: 'removed/keep' });
    const pruning = await plan(root, manifest, { prune: true });
    expect(summary(pruning)).toEqual({ sword: 'up-to-date/none', hero: 'removed/prune', torch: 'removed/prune' });
    expect(pruning.items[1]!.prunable).toEqual(['assets/sprites/hero/hero-walk.png']);
    expect(pruning.items[1]!.reasons).toContain('prune keeps assets/sprites/hero/hero-idle.png (edited)');
    expect(pruning.items[2]!.prunable).toEqual(['assets/fx/torch.gif']);
  });

  it('selects by ids and globs, reports selectors that match nothing, and splits into shards', async () => {
    const { root, manifest } = await project();
    const p = await plan(root, manifest, { select: ['s*', 'torch', 'dragon'] });
    expect(p.items.map((item) => item.id)).toEqual(['sword', 'torch']);
    expect(p.unmatched).toEqual(['dragon']);
    const shards = await Promise.all([1, 2, 3].map((index) => plan(root, manifest, { shard: { index, total: 3 } })));
    const ids = shards.flatMap((s) => s.items.map((item) => item.id));
    expect(ids.sort()).toEqual(['hero', 'sword', 'torch']);
    for (const [i, s] of shards.entries()) for (const item of s.items) expect(shardOf(item.id, 3)).toBe(i + 1);
  });

  it('is pure: the same inputs give the same plan, and the inputs are not changed', async () => {
    const { root, manifest } = await project(['sword']);
    const lock: Lock = readLock(path.join(root, 'assetgen.lock'));
    const hashes = await hashProjectFiles(manifest, lock);
    const before = JSON.stringify(lock);
    const a = planBuild(manifest, lock, hashes, { service: SERVICE });
    expect(planBuild(manifest, lock, hashes, { service: SERVICE })).toEqual(a);
    expect(JSON.stringify(lock)).toBe(before);
  });
});

describe('serviceId', () => {
  it('is the host (and path prefix) of the base URL: no scheme, user or password; mock for the bundled mock', () => {
    expect(serviceId('https://user:secret@Assets.Example.com:8443/api/')).toBe('assets.example.com:8443/api');
    expect(serviceId('https://assets.example.com')).toBe('assets.example.com');
    expect(serviceId('http://127.0.0.1:4010', true)).toBe('mock');
    expect(serviceId(undefined)).toBe('');
  });
});
