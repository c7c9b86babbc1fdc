// `post:` steps in a build, against the mock's ledger: one paid call per asset and the output
// processed (the mock's 128×128 PNG resized), the original kept; a change of the steps alone
// re-processed from the original with nothing paid; a prompt change paid once; a hand edit kept; a
// missing original asked of the service again; a second build doing nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaInfo } from '../../src/files/media-info.js';
import { applyPostSteps } from '../../src/imaging/post.js';
import { parsePostSteps } from '../../src/imaging/post-steps.js';
import { sha256 } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { ledgerOf as ledgerOfService, spendByKey } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { whilePaying, writeFiles } from './helpers.js';

const manifest = (post: string, swordPrompt = 'a rusty sword') => `defaults:
  agent: icon-forge
  out: assets/
  post: ${post}
assets:
  - { id: sword, prompt: ${swordPrompt} }
  - { id: shield, prompt: a wooden shield }
  - { id: raw, prompt: a raw gem, post: [] }
`;
const RESIZE_64 = '[{ resize: { width: 64, height: 64, kernel: nearest } }]';
const RESIZE_32_WEBP = '[{ resize: 32x32 }, { format: webp }]';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const build = (args: string[] = []) => project.run(['build', '--json', ...args]);
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const file = (name: string) => path.join(project.cwd, name);
const size = (name: string) => {
  const info = mediaInfo(file(name));
  return `${info.format} ${info.width}x${info.height}`;
};
const lock = () => readLock(file('assetgen.lock'));
type Item = { id: string; outcome: string; status: string; action?: string; estimate?: number; media?: unknown[]; reasons: string[] };
const items = (result: CliResult) => Object.fromEntries((parseJson(result).items as Item[]).map((item) => [item.id, item]));

const ledgerOf = (work: () => Promise<CliResult>) => ledgerOfService(project, work);

describe('post steps in a build', () => {
  it('one paid call per asset, the output processed, the original kept; --json reports the processed media', async () => {
    write(manifest(RESIZE_64));
    const { result, charges, spent } = await ledgerOf(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(3);
    expect(spent).toBe(30);
    expect(size('assets/sword.png')).toBe('png 64x64');
    expect(size('assets/shield.png')).toBe('png 64x64');
    expect(size('assets/raw.png')).toBe('png 128x128'); // its own `post: []` replaces the default
    expect(size('.assetgen/originals/sword/sword.png')).toBe('png 128x128');
    expect(fs.existsSync(file('.assetgen/originals/raw'))).toBe(false);
    expect(items(result).sword!.media).toEqual([{ path: 'assets/sword.png', format: 'png', width: 64, height: 64 }]);
    // The lock: the result's hash (files), the original's and the steps' hash, each on its own.
    const sword = lock().assets.sword!;
    expect(sword.files.map((entry) => entry.path)).toEqual(['assets/sword.png']);
    expect(sword.original).toMatchObject({
      path: '.assetgen/originals/sword/sword.png',
      size: fs.statSync(file('.assetgen/originals/sword/sword.png')).size,
    });
    expect(sword.post).toMatch(/^[0-9a-f]{64}$/);
    expect(lock().assets.raw!.original).toBeUndefined();
    // Each asset's charge is its own key's: one paid call each.
    expect([...spendByKey(await project.ledger()).values()].sort()).toEqual([10, 10, 10]);
  });

  it('changing only post: the dry run shows reprocess at 0 credits, the build pays nothing and re-processes; then nothing to do', async () => {
    write(manifest(RESIZE_64));
    expect((await build()).code).toBe(0);
    write(manifest(RESIZE_32_WEBP));
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.sword).toMatchObject({ status: 'changed', action: 'reprocess', estimate: 0 });
    expect(plan.sword!.reasons).toContain('post changed');
    expect(plan.raw).toMatchObject({ action: 'none' });
    const dry = await project.run(['build', '--dry-run']);
    expect(dry.stdout).toMatch(/^sword\s+changed\s+reprocess\s+image\s+0\s/m);
    expect(dry.stderr).toContain('2 to re-process (free)');

    const { result, charges, spent } = await ledgerOf(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect([charges, spent]).toEqual([0, 0]);
    expect(items(result).sword).toMatchObject({
      outcome: 'built',
      media: [{ path: 'assets/sword.webp', format: 'webp', width: 32, height: 32 }],
    });
    expect(fs.existsSync(file('assets/sword.png'))).toBe(false); // the PNG it replaces is removed
    expect(size('.assetgen/originals/sword/sword.png')).toBe('png 128x128');

    const again = await ledgerOf(() => build());
    expect(again.charges).toBe(0);
    expect(Object.values(items(again.result)).map((item) => item.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });

  it('post added to an asset built without it: processed from its output, no paid call; removed: the original back', async () => {
    write(manifest('[]'));
    expect((await build()).code).toBe(0);
    const generated = fs.readFileSync(file('assets/sword.png'));
    write(manifest(RESIZE_64));
    const added = await ledgerOf(() => build());
    expect(added.charges).toBe(0);
    expect(size('assets/sword.png')).toBe('png 64x64');
    expect(fs.readFileSync(file('.assetgen/originals/sword/sword.png'))).toEqual(generated);
    write(manifest('[]'));
    const removed = await ledgerOf(() => build());
    expect(removed.charges).toBe(0);
    expect(fs.readFileSync(file('assets/sword.png'))).toEqual(generated);
    expect(lock().assets.sword!.original).toBeUndefined();
    expect(fs.existsSync(file('.assetgen/originals/sword/sword.png'))).toBe(false);
  });

  it('--prune of an asset gone from the manifest deletes its output and its kept original', async () => {
    write(manifest(RESIZE_64));
    expect((await build()).code).toBe(0);
    write(manifest(RESIZE_64).replace(/ {2}- \{ id: shield.*\n/, ''));
    const { result, charges } = await ledgerOf(() => build(['--prune']));
    expect([result.code, charges]).toEqual([0, 0]);
    expect(items(result).shield).toMatchObject({ outcome: 'pruned' });
    expect(fs.existsSync(file('assets/shield.png'))).toBe(false);
    expect(fs.existsSync(file('.assetgen/originals/shield/shield.png'))).toBe(false);
    expect(size('.assetgen/originals/sword/sword.png')).toBe('png 128x128');
  });

  it('changing a prompt: one paid call, for that asset, its output processed', async () => {
    write(manifest(RESIZE_64));
    expect((await build()).code).toBe(0);
    write(manifest(RESIZE_64, 'a shiny sword'));
    const { result, charges, spent } = await ledgerOf(() => build());
    expect([charges, spent]).toEqual([1, 10]);
    expect(items(result).sword).toMatchObject({ outcome: 'built', status: 'changed' });
    expect(items(result).shield).toMatchObject({ outcome: 'unchanged' });
    expect(size('assets/sword.png')).toBe('png 64x64');
  });

  it('a hand-edited output is kept when post changes; a missing original makes the plan ask the service again', async () => {
    write(manifest(RESIZE_64));
    expect((await build()).code).toBe(0);
    fs.writeFileSync(file('assets/sword.png'), 'my own pixels');
    fs.rmSync(file('.assetgen/originals/shield'), { recursive: true });
    write(manifest(RESIZE_32_WEBP));
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.sword).toMatchObject({ status: 'edited', action: 'keep' });
    expect(plan.shield).toMatchObject({ action: 'generate', estimate: 10 });
    expect(plan.shield!.reasons.join('; ')).toContain(
      'the kept original .assetgen/originals/shield/shield.png is missing: generated again (a paid call)',
    );
    // Asked again with the same key (the same spec and generation): the mock still holds the answer and replays it, free.
    const { result, charges } = await ledgerOf(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(0);
    expect(items(result).shield).toMatchObject({ outcome: 'built', status: 'changed' });
    expect(fs.readFileSync(file('assets/sword.png'), 'utf8')).toBe('my own pixels');
    expect(items(result).sword).toMatchObject({ outcome: 'kept' });
    expect(size('assets/shield.webp')).toBe('webp 32x32');
    expect(size('.assetgen/originals/shield/shield.png')).toBe('png 128x128');
  });

  it('a kept original that is not the file the lock records is never used: the plan leaves it alone, and so does the re-process', async () => {
    write(manifest(RESIZE_64));
    expect((await build()).code).toBe(0);
    const output = fs.readFileSync(file('assets/sword.png'));
    // Changed before the plan: the plan keeps the asset (the output as it was), and says why.
    fs.appendFileSync(file('.assetgen/originals/sword/sword.png'), 'x');
    write(manifest(RESIZE_32_WEBP));
    const kept = await ledgerOf(() => build());
    expect([kept.result.code, kept.charges]).toEqual([0, 0]);
    expect(items(kept.result).sword).toMatchObject({
      status: 'edited',
      outcome: 'kept',
      why: expect.arrayContaining([expect.stringContaining('.assetgen/originals/sword/sword.png (the kept original) edited')]),
    });
    expect(fs.readFileSync(file('assets/sword.png'))).toEqual(output);

    // Changed after the plan (while a new asset is paid for): the re-process refuses it, writes nothing.
    const shield = lock().assets.shield!;
    write(manifest(RESIZE_64).replace('assets:\n', 'assets:\n  - { id: axe, prompt: an axe }\n'));
    const changed = await ledgerOf(() =>
      whilePaying(
        project.mock,
        project.cwd,
        'axe',
        () => build(['-j', '1']),
        () => fs.appendFileSync(file('.assetgen/originals/shield/shield.png'), 'x'),
      ),
    );
    expect(changed.result.code).toBe(1);
    expect(changed.charges).toBe(1);
    expect(items(changed.result)).toMatchObject({ axe: { outcome: 'built' }, shield: { outcome: 'failed' } });
    expect((parseJson(changed.result).items as { id: string; reason?: string }[]).find((item) => item.id === 'shield')!.reason).toBe(
      '.assetgen/originals/shield/shield.png is not the file assetgen.lock records (changed since the plan checked it): not used, nothing written.',
    );
    expect(size('assets/shield.webp')).toBe('webp 32x32');
    expect(fs.existsSync(file('assets/shield.png'))).toBe(false);
    expect(lock().assets.shield).toEqual(shield);
  });

  it('a post step that fails keeps the paid image: the fixed manifest re-processes it from the kept original, with no request and nothing charged', async () => {
    // Valid in the manifest, impossible at run time: a WebP is at most 16,383 pixels a side.
    write(manifest('[{ resize: { width: 16384, height: 1, fit: fill } }, { format: webp }]'));
    const failed = await ledgerOf(() => build());
    expect(failed.result.code).toBe(1);
    expect([failed.charges, failed.spent]).toEqual([3, 30]);
    expect(items(failed.result).sword).toMatchObject({ outcome: 'failed', credits: 10 });
    expect((parseJson(failed.result).items as { id: string; reason?: string }[]).find((item) => item.id === 'sword')!.reason).toMatch(
      /a WebP is at most 16383 pixels a side.*\.assetgen\/originals\/sword\/sword\.png/,
    );
    // The job is done (no job left in flight), its cost and its original recorded, the processing failed.
    const kept = fs.readFileSync(file('.assetgen/originals/sword/sword.png'));
    const recorded = lock().assets.sword!;
    expect(recorded.job).toBeUndefined();
    expect(recorded).toMatchObject({ credits: 10, postFailed: true });
    expect(recorded.original).toEqual({ path: '.assetgen/originals/sword/sword.png', sha256: sha256(kept), size: kept.length });
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.sword).toMatchObject({ action: 'reprocess', estimate: 0 });
    expect(plan.sword!.reasons).toEqual([
      'its post steps failed after it was paid for',
      're-processed from .assetgen/originals/sword/sword.png, no paid call',
    ]);
    const requests = async () => (await project.mock.state()).requests;

    // The same steps again: tried on the kept original, failing the same way, asking nothing.
    let before = await requests();
    const again = await ledgerOf(() => build());
    expect([again.result.code, again.charges, (await requests()) - before]).toEqual([1, 0, 0]);
    expect(items(again.result).sword).toMatchObject({ outcome: 'failed', credits: 0 });
    expect(lock().assets.sword).toEqual(recorded);

    write(manifest(RESIZE_64));
    before = await requests();
    const fixed = await ledgerOf(() => project.run(['build']));
    expect(fixed.result.code, fixed.result.stderr).toBe(0);
    expect((await requests()) - before).toBe(0);
    expect([fixed.charges, fixed.spent]).toEqual([0, 0]);
    // What the build says it was charged is what the ledger moved: nothing.
    expect(fixed.result.stderr).toContain('Built 2, resumed 0, unchanged 1');
    expect(fixed.result.stderr).toContain('; 0 credits.');
    expect(fixed.result.stderr).not.toMatch(/charged/i);
    // The output is the kept original's bytes through the fixed steps.
    const steps = parsePostSteps([{ resize: { width: 64, height: 64, kernel: 'nearest' } }]);
    expect(fs.readFileSync(file('assets/sword.png'))).toEqual((await applyPostSteps(kept, steps)).bytes);
    expect(lock().assets.sword).toMatchObject({ credits: 10, original: recorded.original });
    expect(lock().assets.sword!.postFailed).toBeUndefined();
    const after = await ledgerOf(() => build());
    expect(parseJson(after.result)).toMatchObject({ credits: { charged: 0 }, totals: { credits: 0 } });
    expect(items(after.result).sword).toMatchObject({ outcome: 'unchanged' });
  });

  it('post removed from an asset whose out is .webp: the output is the original, named for its format (.png), as without post; no paid call', async () => {
    const gem = (post: string) => `assets:\n  - { id: gem, prompt: a gem, agent: icon-forge, out: assets/gem.webp${post} }\n`;
    write(gem(', post: [{ format: webp }]'));
    expect((await build()).code).toBe(0);
    expect(size('assets/gem.webp')).toBe('webp 128x128');
    const original = fs.readFileSync(file('.assetgen/originals/gem/gem.png'));
    write(gem(''));
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.gem).toMatchObject({ action: 'reprocess', reasons: expect.arrayContaining(['now written as assets/gem.png']) });
    const removed = await ledgerOf(() => build());
    expect([removed.result.code, removed.charges]).toEqual([0, 0]);
    expect(items(removed.result).gem).toMatchObject({ files: ['assets/gem.png'], media: [{ format: 'png', width: 128, height: 128 }] });
    expect(fs.readFileSync(file('assets/gem.png'))).toEqual(original);
    expect(fs.existsSync(file('assets/gem.webp'))).toBe(false);
    expect(items((await ledgerOf(() => build())).result).gem).toMatchObject({ outcome: 'unchanged' });
    // A first build of the same entry names its file the same way.
    for (const name of ['assets', 'assetgen.lock', '.assetgen']) fs.rmSync(file(name), { recursive: true, force: true });
    expect(items(await build()).gem).toMatchObject({ outcome: 'built', files: ['assets/gem.png'] });
  });
});
