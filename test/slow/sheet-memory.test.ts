// A sheet's memory (docs/imaging.md "Memory"): the real CLI re-packs, for free, a 5,000-frame sheet
// (six 4096² pages) and a sheet of eight 2048×1024 frames (four 2048² pages), its peak RSS measured
// exactly (test/support/peak-rss.ts), beside the peak of a dry run of the same 5,008-asset project
// (the CLI's own floor, before any sheet). The frames are the mock's 128² icons, built once, and the
// large ones made by a free resize post step at the most pixels a post step makes (POST_LIMITS).
//
// The goal is 150 MiB for the whole process. Measured by hand on a quiet 2-core machine, the
// re-pack reads 133-141 MiB and its dry run 121-133 (docs/benchmarks.md, session 23): the project
// commands keep V8's young generation from growing (src/heap.ts), a frame's
// rows are unfiltered in place, an atlas page's dead pixels are collected when it is done, and the
// lock is written from its entries as it goes. The bounds add room for the spread of a loaded CI
// machine (the slow suite's other files run beside this one), so that a regression fails here
// without the figures' noise doing so; they are printed on every run.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PhaserMultiAtlas } from '../../src/imaging/atlas.js';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, runCli } from '../support/cli.js';
import { runMeasured } from '../support/peak-rss.js';
import { useMockProject } from '../support/project.js';

const GOAL_MIB = 150;
/** The re-pack: the goal, with room for a loaded machine's spread. */
const REPACK_BOUND_MIB = GOAL_MIB + 15;
const DRY_RUN_BOUND_MIB = GOAL_MIB + 15;
const FRAMES = 5000;
const POSTERS = 8;

function manifest(padding: number): string {
  const lines = ['defaults: { agent: icon-forge, out: assets/f/ }', 'assets:'];
  for (let i = 0; i < FRAMES; i++) lines.push(`  - { id: i${String(i).padStart(4, '0')}, prompt: frame ${i} }`);
  for (let i = 1; i <= POSTERS; i++)
    lines.push(
      `  - { id: p${i}, prompt: poster ${i}, out: assets/p/, post: [{ resize: { width: 2048, height: 1024, fit: fill, kernel: nearest } }] }`,
    );
  lines.push(`  - { id: frames, sheet: { from: ["i*"], padding: ${padding} }, out: assets/frames.png }`);
  lines.push(`  - { id: posters, sheet: { from: ["p*"], padding: 0, extrude: 0, maxSize: 2048 }, out: assets/posters.png }`);
  return `${lines.join('\n')}\n`;
}

const project = useMockProject({ mock: { credits: 1_000_000 }, config: { credits: 1_000_000, faults: { rate: 0 } } });

describe('sheets within the memory bound', () => {
  it(`re-packing a ${FRAMES.toLocaleString('en')}-frame sheet and a sheet of 2048×1024 frames on four pages stays within ${REPACK_BOUND_MIB} MiB (goal ${GOAL_MIB}), its dry run within ${DRY_RUN_BOUND_MIB}`, async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), manifest(2));
    const built = await runCli(['build', '--yes', '-j', '16'], { env: project.env(), cwd: project.cwd, timeoutMs: 400_000 });
    expect(built.code, built.stderr).toBe(0);
    const paid = (await project.ledger()).filter((entry) => entry.amount < 0).length;
    expect(paid).toBe(FRAMES + POSTERS);

    // The frames sheet's padding changes and a page of the posters is gone: both re-packed, nothing paid.
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), manifest(3));
    fs.rmSync(path.join(project.cwd, 'assets/posters-1.png'));
    const dry = await runMeasured(['build', '--dry-run', '--json'], { env: project.env(), cwd: project.cwd, timeoutMs: 400_000 });
    const repacked = await runMeasured(['build', '--json'], { env: project.env(), cwd: project.cwd, timeoutMs: 400_000 });
    console.log(
      `peak RSS: dry run ${dry.peakRssMiB.toFixed(1)} MiB, sheets re-packed ${repacked.peakRssMiB.toFixed(1)} MiB (goal ${GOAL_MIB})`,
    );
    expect(repacked.code, repacked.stderr).toBe(0);
    const items = parseJson(repacked).items as { id: string; outcome: string }[];
    expect(items.filter((item) => item.outcome === 'built').map((item) => item.id)).toEqual(['frames', 'posters']);
    expect((await project.ledger()).filter((entry) => entry.amount < 0)).toHaveLength(paid);

    const lock = readLock(path.join(project.cwd, 'assetgen.lock'));
    for (const [id, pages, frames] of [
      ['frames', 6, FRAMES],
      ['posters', 4, POSTERS],
    ] as const) {
      const multi = JSON.parse(fs.readFileSync(path.join(project.cwd, `assets/${id}.json`), 'utf8')) as PhaserMultiAtlas;
      expect(multi.textures.map((texture) => texture.image)).toEqual(Array.from({ length: pages }, (_, k) => `${id}-${k}.png`));
      expect(multi.textures.flatMap((texture) => texture.frames)).toHaveLength(frames);
      expect(lock.assets[id]!.files).toHaveLength(2 * pages + 1);
      for (const texture of multi.textures) {
        const { width, height } = await sharp(path.join(project.cwd, 'assets', texture.image)).metadata();
        expect({ w: width, h: height }).toEqual(texture.size);
      }
    }
    // A poster's pixels are its file's, where the data says.
    const poster = JSON.parse(fs.readFileSync(path.join(project.cwd, 'assets/posters.json'), 'utf8')) as PhaserMultiAtlas;
    const first = poster.textures[0]!.frames[0]!;
    const region = { left: first.frame.x, top: first.frame.y, width: first.frame.w, height: first.frame.h };
    const packed = await sharp(path.join(project.cwd, 'assets', poster.textures[0]!.image))
      .extract(region)
      .raw()
      .toBuffer();
    const source = await sharp(path.join(project.cwd, `assets/p/${first.filename}.png`))
      .ensureAlpha()
      .raw()
      .toBuffer();
    expect(packed.equals(source)).toBe(true);

    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.peakRssMiB).toBeLessThanOrEqual(DRY_RUN_BOUND_MIB);
    expect(repacked.peakRssMiB).toBeLessThanOrEqual(REPACK_BOUND_MIB);
  }, 900_000);
});
