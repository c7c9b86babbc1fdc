// A 2,000-frame set on several atlas pages, in real engines' loaders in headless chromium, from a
// node:http server on 127.0.0.1, under the file names a sheet writes (docs/imaging.md "Pages"):
// Phaser 3's `this.load.multiatlas` of `<name>.json` draws every frame (the canvas read back at
// each frame's corners and centre gives the frame's own colours); PixiJS 8's `Assets.load` of
// `<name>-0.json` follows `related_multi_packs` to every page and gives every frame's texture.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atlasJson, planAtlas, type TexturePackerJsonHash } from '../../src/imaging/atlas.js';
import { sheetFiles } from '../../src/pipeline/sheet.js';
import { makePixels, toPng, type RGBA } from '../imaging/pixels.js';
import { CHROMIUM, warnWithoutChromium } from '../support/chromium.js';
import { startEngineStage, type EngineStage } from '../support/engine-page.js';

warnWithoutChromium('atlas pages engine test');

const moduleFile = (relative: string) => fs.readFileSync(new URL(`../../node_modules/${relative}`, import.meta.url));

const COUNT = 2000;
/** Frames drawn in a grid of CELL-pixel cells, COLUMNS across. */
const CELL = 24;
const COLUMNS = 50;

/** Frame i: 6–21 px a side, opaque (a canvas reads half-transparent pixels back premultiplied), its colours its own. */
const frameOf = (index: number) => ({
  name: `fx/${String(index).padStart(4, '0')}`,
  width: 6 + ((index * 7) % 16),
  height: 6 + ((index * 11) % 16),
  colour: (x: number, y: number): RGBA => [(x * 37 + index * 11) % 256, (y * 53 + index * 7) % 256, (index * 13 + x + y) % 256, 255],
});
const FRAMES = Array.from({ length: COUNT }, (_, index) => frameOf(index));

/** The points read back from each drawn frame: its corners and its centre. */
const samples = (frame: (typeof FRAMES)[number]): [number, number][] => [
  [0, 0],
  [frame.width - 1, 0],
  [0, frame.height - 1],
  [frame.width - 1, frame.height - 1],
  [frame.width >> 1, frame.height >> 1],
];

describe.skipIf(!CHROMIUM)('an atlas of several pages in real engines', () => {
  let stage: EngineStage;
  let pages: TexturePackerJsonHash[];
  const requests: string[] = [];
  let files: Record<string, [string, Buffer]> = {};

  beforeAll(async () => {
    const sources = await Promise.all(
      FRAMES.map(async (frame) => {
        const bytes = await toPng(makePixels(frame.width, frame.height, frame.colour));
        return { name: frame.name, read: async () => bytes };
      }),
    );
    const plan = await planAtlas(sources, { padding: 2, extrude: 1, maxSize: 512, pages: true });
    // The names `sheet: … out: assets/fx.png` writes for this many pages.
    const written = sheetFiles('assets/fx.png', plan.pages.length);
    const images = written.filter((file) => file.endsWith('.png'));
    const datas = images.map((image) => image.replace(/\.png$/, '.json'));
    files = {
      '/phaser.min.js': ['text/javascript', moduleFile('phaser/dist/phaser.min.js')],
      '/pixi.min.js': ['text/javascript', moduleFile('pixi.js/dist/pixi.min.js')],
      '/phaser.html': ['text/html', Buffer.from('<!doctype html><meta charset="utf-8"><body><script src="/phaser.min.js"></script>')],
      '/pixi.html': ['text/html', Buffer.from('<!doctype html><meta charset="utf-8"><body><script src="/pixi.min.js"></script>')],
    };
    pages = [];
    for (const [index, image] of images.entries()) {
      const chunks: Buffer[] = [];
      for await (const chunk of plan.png(index)) chunks.push(chunk);
      files[`/${image}`] = ['image/png', Buffer.concat(chunks)];
      const related = datas.filter((_, other) => other !== index).map((file) => path.posix.basename(file));
      pages.push(plan.pageData(index, path.posix.basename(image), related));
      files[`/${datas[index]}`] = ['application/json', Buffer.from(atlasJson(pages[index]!))];
    }
    files[`/${written.at(-1)}`] = [
      'application/json',
      Buffer.from(atlasJson(plan.multiAtlas(images.map((image) => path.posix.basename(image))))),
    ];
    stage = await startEngineStage(files, { onRequest: (url) => requests.push(url), pageTimeoutMs: 30_000 });
  }, 120_000);
  afterAll(async () => {
    await stage?.close();
  });

  const open = (file: string) => stage.open(file);

  it('the set takes several pages, named as a sheet names them', () => {
    expect(pages.length).toBeGreaterThan(2);
    expect(Object.keys(files).filter((file) => file.startsWith('/assets/'))).toEqual(
      expect.arrayContaining(['/assets/fx.json', '/assets/fx-0.png', '/assets/fx-0.json', `/assets/fx-${pages.length - 1}.png`]),
    );
  });

  it('Phaser 3 multiatlas: every frame listed with its size, and drawn with its own pixels', async () => {
    const { page, problems } = await open('phaser.html');
    const grid = FRAMES.map((frame, index) => ({
      name: frame.name,
      x: (index % COLUMNS) * CELL,
      y: Math.floor(index / COLUMNS) * CELL,
      points: samples(frame),
    }));
    const seen = await page.evaluate(
      ({ grid, cell, columns }) =>
        new Promise<{ names: string[]; sizes: Record<string, number[]>; drawn: number[][][]; sources: number }>((resolve, reject) => {
          setTimeout(() => reject(new Error('Phaser did not draw in 25 s')), 25_000);
          const Phaser = (window as any).Phaser;
          new Phaser.Game({
            type: Phaser.CANVAS,
            width: columns * cell,
            height: Math.ceil(grid.length / columns) * cell,
            banner: false,
            pixelArt: true,
            audio: { noAudio: true },
            scene: {
              preload(this: any) {
                this.load.on('loaderror', (file: any) => reject(new Error(`Phaser could not load ${file.src}`)));
                this.load.multiatlas('fx', '/assets/fx.json', '/assets/');
              },
              create(this: any) {
                const texture = this.textures.get('fx');
                const sizes: Record<string, number[]> = {};
                for (const name of texture.getFrameNames() as string[]) {
                  const frame = texture.get(name);
                  sizes[name] = [frame.sourceIndex, frame.cutX, frame.cutY, frame.cutWidth, frame.cutHeight];
                }
                for (const item of grid) this.add.image(item.x, item.y, 'fx', item.name).setOrigin(0, 0);
                this.game.events.once('postrender', () => {
                  const context = (this.game.canvas as HTMLCanvasElement).getContext('2d')!;
                  const pixels = context.getImageData(0, 0, this.game.canvas.width, this.game.canvas.height);
                  const at = (x: number, y: number) => [
                    ...pixels.data.subarray((y * pixels.width + x) * 4, (y * pixels.width + x) * 4 + 4),
                  ];
                  const drawn = grid.map((item) => item.points.map(([dx, dy]) => at(item.x + dx, item.y + dy)));
                  resolve({ names: texture.getFrameNames(), sizes, drawn, sources: texture.source.length });
                });
              },
            },
          });
        }),
      { grid, cell: CELL, columns: COLUMNS },
    );
    expect(seen.sources).toBe(pages.length);
    expect(seen.names).toHaveLength(COUNT);
    expect(seen.names.sort()).toEqual(FRAMES.map((frame) => frame.name).sort());
    pages.forEach((data, sourceIndex) => {
      for (const [name, entry] of Object.entries(data.frames)) {
        const { x, y, w, h } = entry.frame;
        expect(seen.sizes[name], name).toEqual([sourceIndex, x, y, w, h]);
      }
    });
    const wrong = FRAMES.flatMap((frame, index) =>
      samples(frame).flatMap(([x, y], point) => {
        const want = [...frame.colour(x, y)];
        const got = seen.drawn[index]![point]!;
        return got.every((value, channel) => value === want[channel]) ? [] : [`${frame.name} (${x},${y}): ${got} not ${want}`];
      }),
    );
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('PixiJS 8 Assets.load of the first page loads every page (related_multi_packs): every frame’s texture, its rectangle and page', async () => {
    const { page, problems } = await open('pixi.html');
    const seen = await page.evaluate(async (count) => {
      const PIXI = (window as any).PIXI;
      const first = await PIXI.Assets.load('/assets/fx-0.json');
      const sheets = [first, ...first.linkedSheets];
      const frames: Record<string, number[]> = {};
      sheets.forEach((sheet: any) => {
        for (const [name, texture] of Object.entries<any>(sheet.textures)) {
          // Each texture's page: which sheet's image it is cut from.
          const page = Number(/fx-([0-9]+)\.png$/.exec(sheet.data.meta.image)![1]);
          frames[name] = [page, texture.frame.x, texture.frame.y, texture.frame.width, texture.frame.height];
        }
      });
      // A frame from the last page, asked for by name alone, as a game does.
      const last = Object.keys(sheets.at(-1).textures)[0]!;
      const byName = PIXI.Texture.from(last);
      return { frames, sheets: sheets.length, count, byName: [last, byName.frame.width, byName.frame.height] };
    }, COUNT);
    expect(seen.sheets).toBe(pages.length);
    expect(Object.keys(seen.frames)).toHaveLength(COUNT);
    pages.forEach((data, index) => {
      for (const [name, entry] of Object.entries(data.frames)) {
        const { x, y, w, h } = entry.frame;
        expect(seen.frames[name], name).toEqual([index, x, y, w, h]);
      }
    });
    const [lastName, width, height] = seen.byName as [string, number, number];
    const lastFrame = FRAMES.find((frame) => frame.name === lastName)!;
    expect([width, height]).toEqual([lastFrame.width, lastFrame.height]);
    for (const index of pages.keys()) expect(requests).toContain(`/assets/fx-${index}.png`);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
