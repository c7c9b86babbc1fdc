// Atlases of several pages: a set that does not fit one maxSize page is laid out on several, with
// at least maxrects-packer's occupancy on the same frames (figures compared, not timings); every
// page's pixels are its frames' at the rectangles its JSON-hash names, whether a frame's pixels were
// kept from measuring or read again for a band of rows; the data both engines load (PixiJS's
// related multi-packs, Phaser's multiatlas) names every frame once; the same frames in any order give
// the same bytes; a frame past the sheet frame limit is refused before its pixels are decoded.
import { describe, expect, it } from 'vitest';
import { ATLAS_BUDGETS, planAtlas, type AtlasBudgets, type AtlasFrameSource, type AtlasPlan } from '../../src/imaging/atlas.js';
import { ImagingError } from '../../src/imaging/errors.js';
import { ATLAS_LIMITS } from '../../src/imaging/limits.js';
import { layoutAtlas, occupancy, type LayoutFrame, type PageLayout } from '../../src/imaging/pages.js';
import { maxrectsPackerPages } from '../support/maxrects-baseline.js';
import { checkAtlas } from '../imaging/atlas-check.js';
import { makePixels, noisy, readPixels, region, toPng, type Pixels, type RGBA } from '../imaging/pixels.js';

/** `count` frames of sides from `min` to `max` (a fixed pseudo-random sequence), named f0000, f0001, … */
function frameSizes(count: number, min: number, max: number, seed: number): LayoutFrame[] {
  let state = seed;
  const next = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, (_, index) => ({
    name: `f${String(index).padStart(4, '0')}`,
    width: min + Math.floor(next() * (max - min + 1)),
    height: min + Math.floor(next() * (max - min + 1)),
  }));
}

/** Every place inside its page, no two cells (frame, extrusion, padding) overlapping, every frame placed once. */
function expectSoundLayout(frames: readonly LayoutFrame[], pages: readonly PageLayout[], padding: number, extrude: number) {
  const seen = pages.flatMap((page) => page.places.map((place) => place.frame)).sort((a, b) => a - b);
  expect(seen).toEqual(frames.map((_, index) => index));
  const problems: string[] = [];
  pages.forEach((page, index) => {
    const cells = page.places.map(({ frame, x, y }) => ({
      x: x - extrude,
      y: y - extrude,
      w: frames[frame].width + 2 * extrude,
      h: frames[frame].height + 2 * extrude,
    }));
    for (const cell of cells)
      if (cell.x < 0 || cell.y < 0 || cell.x + cell.w > page.width || cell.y + cell.h > page.height) problems.push(`outside page ${index}`);
    // A sweep by x keeps this linear enough for 2,000 frames.
    const byX = [...cells].sort((a, b) => a.x - b.x);
    for (let i = 0; i < byX.length; i++)
      for (let j = i + 1; j < byX.length && byX[j].x < byX[i].x + byX[i].w + padding; j++) {
        const [a, b] = [byX[i], byX[j]];
        if (a.y < b.y + b.h + padding && b.y < a.y + a.h + padding) problems.push(`two frames closer than ${padding} on page ${index}`);
      }
  });
  expect(problems.slice(0, 5)).toEqual([]);
}

describe('layoutAtlas on several pages', () => {
  it.each([
    // The case: 2,000 frames that filled one 8192² page to half, on 4096² pages.
    { count: 2000, min: 64, max: 200, maxSize: 4096, seed: 7 },
    { count: 2000, min: 16, max: 64, maxSize: 512, seed: 1 },
    { count: 2000, min: 32, max: 256, maxSize: 2048, seed: 3 },
  ])(
    '$count frames of $min–$max px on $maxSize² pages: several pages, occupancy at least maxrects-packer’s',
    async ({ count, min, max, maxSize, seed }) => {
      const frames = frameSizes(count, min, max, seed);
      const options = { padding: 2, extrude: 1, maxSize };
      const pages = layoutAtlas(frames, { ...options, pages: true });
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect([page.width, page.height].every((side) => side <= maxSize && (side & (side - 1)) === 0)).toBe(true);
      expectSoundLayout(frames, pages, 2, 1);
      const baseline = await maxrectsPackerPages(frames, options);
      expect(baseline.pages.length).toBeGreaterThan(1);
      expect(occupancy(frames, pages)).toBeGreaterThanOrEqual(baseline.occupancy);
    },
    60_000,
  );

  it('a set that fits one page stays on one page, even when pages are allowed', () => {
    const frames = frameSizes(200, 8, 40, 5);
    const one = layoutAtlas(frames, { padding: 2, extrude: 1, maxSize: 1024, pages: false });
    expect(layoutAtlas(frames, { padding: 2, extrude: 1, maxSize: 1024, pages: true })).toEqual(one);
    expect(one).toHaveLength(1);
  });

  it('without pages, a set larger than one page is the atlas_too_small error it always was', () => {
    const frames = frameSizes(20, 16, 16, 1);
    expect(() => layoutAtlas(frames, { padding: 2, extrude: 1, maxSize: 64, pages: false })).toThrow(
      /^the frames do not fit in a 64×64 atlas \(20 frames take 8,000 pixels/,
    );
    expect(layoutAtlas(frames, { padding: 2, extrude: 1, maxSize: 64, pages: true }).length).toBeGreaterThan(1);
  });
});

/** Frames as PNG sources that count their reads; each frame's pixels from `colour` (by default noisy, no two alike). */
async function sourcesOf(
  frames: readonly LayoutFrame[],
  colour: (index: number) => (x: number, y: number) => RGBA = (index) => noisy(index + 1),
): Promise<{ sources: AtlasFrameSource[]; pixels: Map<string, Pixels>; reads: Map<string, number> }> {
  const pixels = new Map(frames.map((frame, index) => [frame.name, makePixels(frame.width, frame.height, colour(index))] as const));
  const reads = new Map<string, number>();
  const sources = await Promise.all(
    [...pixels].map(async ([name, image]) => {
      const bytes = await toPng(image);
      return {
        name,
        read: async () => {
          reads.set(name, (reads.get(name) ?? 0) + 1);
          return bytes;
        },
      };
    }),
  );
  return { sources, pixels, reads };
}

async function pagePng(plan: AtlasPlan, index: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of plan.png(index)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('planAtlas on several pages, on real pixels', () => {
  it('every page holds its frames’ pixels where its JSON-hash says; PixiJS’s and Phaser’s data name every frame once', async () => {
    const frames = frameSizes(60, 5, 30, 11);
    const { sources, pixels } = await sourcesOf(frames);
    const plan = await planAtlas(sources, { padding: 2, extrude: 1, maxSize: 64, pages: true });
    expect(plan.pages.length).toBeGreaterThan(2);
    const images = plan.pages.map((_, index) => `fx-${index}.png`);
    const datas = plan.pages.map((_, index) => `fx-${index}.json`);
    const seen: string[] = [];
    for (const [index, page] of plan.pages.entries()) {
      const related = datas.filter((_, other) => other !== index);
      const data = plan.pageData(index, images[index], related);
      expect(data.meta).toEqual({
        app: 'assetgen',
        version: '1.0',
        image: images[index],
        format: 'RGBA8888',
        size: { w: page.width, h: page.height },
        scale: '1',
        related_multi_packs: related,
      });
      const png = await readPixels(await pagePng(plan, index));
      expect([png.width, png.height]).toEqual([page.width, page.height]);
      checkAtlas(png, data, pixels, 2, 1);
      seen.push(...Object.keys(data.frames));
    }
    expect(seen.sort()).toEqual(frames.map((frame) => frame.name));
    const multi = plan.multiAtlas(images);
    expect(multi.textures.map((texture) => texture.image)).toEqual(images);
    const listed = multi.textures.flatMap((texture, index) => {
      const page = plan.pageData(index, images[index]);
      expect(texture.size).toEqual(page.meta.size);
      // The same rectangles as the page's JSON-hash, as an array with each frame's name in `filename`.
      expect(Object.fromEntries(texture.frames.map(({ filename, ...entry }) => [filename, entry]))).toEqual(page.frames);
      return texture.frames.map((frame) => frame.filename);
    });
    expect(listed.sort()).toEqual(frames.map((frame) => frame.name));
  });

  it('pages made in bands of rows, frames read again past what is kept: every pixel right, with trim (budgets a sixteenth of the defaults)', async () => {
    // The defaults' paths (ATLAS_BUDGETS: kept frames, frames crossing a band, decode groups, bands)
    // at a sixteenth of their sizes, on a sixteenth of the pixels: the sheet-memory slow test runs
    // the defaults on 5,000 frames. 325 frames of 20–45 px, two in three with a transparent border
    // to trim: about 1.3 MiB of pixels, more than the 1 MiB kept.
    const budgets = Object.fromEntries(
      Object.entries(ATLAS_BUDGETS).map(([name, value]) => [name, name === 'decodeBatch' ? value : value / 16]),
    ) as unknown as AtlasBudgets;
    const { sources, pixels, reads } = await sourcesOf(
      frameSizes(325, 20, 45, 21),
      (index) => (x, y) =>
        index % 3 && (x < 3 || y < 2) ? [0, 0, 0, 0] : [(x * 7 + index) % 256, (y * 5 + index) % 256, index % 256, 255],
    );
    const plan = await planAtlas(sources, { padding: 1, extrude: 2, maxSize: 512, trim: true, pages: true }, budgets);
    expect(plan.pages[0]).toEqual({ width: 512, height: 512 });
    expect(plan.pages.length).toBeGreaterThan(1);
    for (const index of plan.pages.keys()) {
      const data = plan.pageData(index, `big-${index}.png`);
      const png = await readPixels(await pagePng(plan, index));
      // What each frame should look like in the atlas: trimmed where the data says it was.
      const trimmed = new Map(
        Object.entries(data.frames).map(([name, entry]) => {
          const { x, y, w, h } = entry.spriteSourceSize;
          return [name, { data: region(pixels.get(name)!, x, y, w, h), width: w, height: h }] as const;
        }),
      );
      checkAtlas(png, data, trimmed, 1, 2);
    }
    const everyFrame = Object.assign({}, ...plan.pages.map((_, index) => plan.pageData(index, 'big.png').frames)) as Record<
      string,
      unknown
    >;
    expect(everyFrame.f0001).toMatchObject({ trimmed: true, spriteSourceSize: { x: 3, y: 2 } });
    // Read once to measure; many read again to draw (past the budget). A 512-pixel row is 2 KiB: a band
    // (256 KiB) is 127 rows, so frames cross bands on every page.
    const counts = [...reads.values()];
    expect(counts.filter((count) => count >= 2).length).toBeGreaterThan(30);
  });

  it('animations on a set of several pages: refused (atlas_too_small), saying why and what to do; on one page, written', async () => {
    const frames = frameSizes(60, 5, 30, 11);
    const { sources } = await sourcesOf(frames);
    const animations = { walk: [sources[0]!.name, sources[1]!.name] };
    const refused = await planAtlas(sources, { padding: 2, extrude: 1, maxSize: 64, pages: true, animations }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: 'atlas_too_small',
      message: expect.stringMatching(/pages of 64² and the sheet has animations.*raise maxSize/),
    });
    const onePage = await planAtlas(sources, { padding: 2, extrude: 1, maxSize: 2048, pages: true, animations });
    expect(onePage.pages).toHaveLength(1);
    expect(onePage.pageData(0, 'fx.png').animations).toEqual(animations);
  });

  it('gives identical bytes for every page for the same frames, in any order', async () => {
    const frames = frameSizes(40, 5, 30, 13);
    const { sources } = await sourcesOf(frames);
    const pack = async (order: AtlasFrameSource[]) => {
      const plan = await planAtlas(order, { maxSize: 64, pages: true });
      return Promise.all(plan.pages.map(async (_, index) => [await pagePng(plan, index), JSON.stringify(plan.pageData(index, 'p.png'))]));
    };
    const first = await pack(sources);
    const second = await pack([...sources].reverse());
    expect(first.length).toBeGreaterThan(1);
    expect(second.map(([png, json]) => [(png as Buffer).toString('base64'), json])).toEqual(
      first.map(([png, json]) => [(png as Buffer).toString('base64'), json]),
    );
  });

  it('refuses a frame past the frame limit from its header, naming it', async () => {
    const side = Math.sqrt(ATLAS_LIMITS.maxFramePixels);
    const huge = await toPng(makePixels(side + 1, side, () => [0, 0, 0, 0]));
    const error = await planAtlas([{ name: 'poster', read: async () => huge }], { maxSize: 4096, pages: true }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ImagingError);
    expect((error as ImagingError).code).toBe('too_large');
    expect((error as ImagingError).message).toBe(
      `frame "poster" is ${side + 1}×${side}: an atlas frame has at most 4,194,304 pixels (2048×2048); scale it down with a resize post step`,
    );
  });
});
