// `slice` in a build, against the mock's ledger: one paid call cuts the generated image into frames
// `<stem>-<n>` (the lock lists them by frame number, 10 after 9), a sheet names them `<id>-<n>` and
// plays them as `animations` by frame number; changing only the slice re-cuts the kept original
// for 0 credits and removes the frames it no longer makes; a frame edited by hand is kept; the
// manifest's mistakes (an animation naming no frame, a frame name another asset writes) are exit 2
// before anything is paid.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaInfo } from '../../src/files/media-info.js';
import type { TexturePackerJsonHash } from '../../src/imaging/atlas.js';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { ledgerOf as ledgerOfService } from '../support/ledger.js';
import { startPictureProxy } from '../support/picture-proxy.js';
import { useMockProject } from '../support/project.js';
import { TRANSPARENT, walkStrip } from '../support/walk-strip.js';
import { toPng } from '../imaging/pixels.js';
import { writeFiles } from './helpers.js';

const manifest = (slice: string, animations = '{ walk: "hero-walk-*", idle: [hero-walk-2, coin] }') => `defaults:
  agent: sprite-artist
  out: assets/
assets:
  - { id: hero-walk, prompt: a knight walking, post: [{ slice: ${slice} }] }
  - { id: coin, prompt: a gold coin }
  - id: hero
    sheet: { from: [hero-walk, coin], animations: ${animations} }
    out: sheets/hero.png
`;
const GRID_4X3 = '{ columns: 4, rows: 3 }';
const GRID_4X2 = '{ columns: 4, rows: 2 }';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const build = (args: string[] = []) => project.run(['build', '--json', ...args]);
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const file = (name: string) => path.join(project.cwd, name);
const size = (name: string) => {
  const info = mediaInfo(file(name));
  return `${info.width}x${info.height}`;
};
const lock = () => readLock(file('assetgen.lock'));
const sheetData = () => JSON.parse(fs.readFileSync(file('sheets/hero.json'), 'utf8')) as TexturePackerJsonHash;
const frames = (count: number, name = (n: number) => `assets/hero-walk-${n}.png`) =>
  Array.from({ length: count }, (_, index) => name(index + 1));
type Item = { id: string; outcome: string; status: string; action?: string; estimate?: number; reasons: string[] };
const items = (result: CliResult) => Object.fromEntries((parseJson(result).items as Item[]).map((item) => [item.id, item]));

const ledgerOf = (work: () => Promise<CliResult>) => ledgerOfService(project, work);

describe('slice in a build', () => {
  it('one paid call, 12 frames in order; the sheet names them <id>-<n> and plays them by frame number', async () => {
    write(manifest(GRID_4X3));
    const { result, charges, spent } = await ledgerOf(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect([charges, spent]).toEqual([2, 20]); // hero-walk and coin; the sheet is free
    // The mock's 128×128 picture in 4 × 3 cells: 32 wide; 42, 43 and 43 high.
    expect(frames(12).map(size)).toEqual([...Array(4).fill('32x42'), ...Array(8).fill('32x43')]);
    // The lock as written on disk lists frame n as the n-th file (hero-walk-10 after hero-walk-9).
    expect(lock().assets['hero-walk']!.files.map((entry) => entry.path)).toEqual(frames(12));
    expect(fs.readFileSync(file('assetgen.lock'), 'utf8').indexOf('hero-walk-9.png')).toBeLessThan(
      fs.readFileSync(file('assetgen.lock'), 'utf8').indexOf('hero-walk-10.png'),
    );
    expect(lock().assets['hero-walk']!.original?.path).toBe('.assetgen/originals/hero-walk/hero-walk.png');
    const data = sheetData();
    expect(Object.keys(data.frames).sort()).toEqual(['coin', ...frames(12, (n) => `hero-walk-${n}`)].sort());
    expect(data.animations).toEqual({ walk: frames(12, (n) => `hero-walk-${n}`), idle: ['hero-walk-2', 'coin'] });
    expect(data.frames['hero-walk-10']!.sourceSize).toEqual({ w: 32, h: 43 });
  });

  it('changing only the slice: re-cut from the kept original for 0 credits, the frames it no longer makes removed', async () => {
    write(manifest(GRID_4X3));
    expect((await build()).code).toBe(0);
    write(manifest(GRID_4X2));
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan['hero-walk']).toMatchObject({ status: 'changed', action: 'reprocess', estimate: 0 });
    expect(plan['hero-walk']!.reasons).toContain('post changed');
    const { result, charges, spent } = await ledgerOf(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect([charges, spent]).toEqual([0, 0]);
    expect(items(result)['hero-walk']).toMatchObject({ outcome: 'built' });
    expect(frames(8).map(size)).toEqual(Array(8).fill('32x64'));
    for (const stale of ['assets/hero-walk-9.png', 'assets/hero-walk-12.png']) expect(fs.existsSync(file(stale)), stale).toBe(false);
    expect(lock().assets['hero-walk']!.files.map((entry) => entry.path)).toEqual(frames(8));
    expect(sheetData().animations!.walk).toEqual(frames(8, (n) => `hero-walk-${n}`));
    // Nothing left to do, nothing paid.
    const again = await ledgerOf(() => build());
    expect(again.charges).toBe(0);
    expect(Object.values(items(again.result)).map((item) => item.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });

  it('a deleted frame is cut again for free; a frame edited by hand keeps the asset as it is', async () => {
    write(manifest(GRID_4X3));
    expect((await build()).code).toBe(0);
    fs.rmSync(file('assets/hero-walk-7.png'));
    const restored = await ledgerOf(() => build());
    expect(restored.charges).toBe(0);
    expect(items(restored.result)['hero-walk']).toMatchObject({ status: 'missing', outcome: 'built' });
    expect(size('assets/hero-walk-7.png')).toBe('32x43');

    fs.writeFileSync(file('assets/hero-walk-11.png'), fs.readFileSync(file('assets/hero-walk-1.png')));
    write(manifest(GRID_4X2));
    const kept = await ledgerOf(() => build());
    expect(kept.charges).toBe(0);
    expect(items(kept.result)['hero-walk']).toMatchObject({ status: 'edited' });
    // The edited frame and its siblings stay: nothing of the asset is cut again or removed.
    for (const frame of frames(12)) expect(fs.existsSync(file(frame)), frame).toBe(true);
  });

  it('an out file: frames <stem>-<n> beside where it would be', async () => {
    write(manifest(GRID_4X2).replace('post: [', 'out: sprites/walk.png, post: ['));
    const result = await build();
    expect(result.code, result.stderr).toBe(0);
    expect(lock().assets['hero-walk']!.files.map((entry) => entry.path)).toEqual(frames(8, (n) => `sprites/walk-${n}.png`));
    expect(sheetData().animations!.walk).toEqual(frames(8, (n) => `hero-walk-${n}`));
  });

  it('exit 2 before anything is paid: an animation that names no frame, a frame another asset writes', async () => {
    write(manifest(GRID_4X2, '{ walk: ["hero-walk-*", hero-walk-9, hero-wlak-1] }'));
    const unknown = await ledgerOf(() => project.run(['build']));
    expect(unknown.result.code).toBe(2);
    expect(unknown.result.stderr).toContain('assets[2].sheet.animations.walk[1]: "hero-walk-9" names no frame of this sheet');
    expect(unknown.result.stderr).toContain('assets[2].sheet.animations.walk[2]: "hero-wlak-1" names no frame of this sheet');
    expect(unknown.charges).toBe(0);

    write(`${manifest(GRID_4X2)}  - { id: hero-walk-3, prompt: a third pose }\n`);
    const clash = await ledgerOf(() => project.run(['build']));
    expect(clash.result.code).toBe(2);
    expect(clash.result.stderr).toContain(
      '"hero-walk" (its frames assets/hero-walk-<n>.*) and "hero-walk-3" can both write assets/hero-walk-3.*',
    );
    expect(clash.charges).toBe(0);
  });

  it('gaps: the frames a strip has; an animation past them fails the sheet when packed, naming it (exit 1)', async () => {
    const proxy = await startPictureProxy(project.mock.url, await toPng(walkStrip(TRANSPARENT)));
    try {
      write(manifest('{ gaps: transparent }', '{ walk: "hero-walk-*", hurt: hero-walk-9 }'));
      const env = { ...project.env(), ASSETGEN_BASE_URL: proxy.url };
      const { result, charges } = await ledgerOf(() => project.run(['build', '--json'], { env }));
      expect(result.code).toBe(1);
      expect(charges).toBe(2);
      expect(lock().assets['hero-walk']!.files.map((entry) => entry.path)).toEqual(frames(8));
      expect(items(result)['hero-walk']).toMatchObject({ outcome: 'built' });
      expect(items(result).hero).toMatchObject({
        outcome: 'failed',
        reason: 'animations name no frame of the sheet (hurt: hero-walk-9): not packed',
      });
    } finally {
      await proxy.close();
    }
  });
});
