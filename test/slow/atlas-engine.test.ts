// A real engine's loader reads an atlas packAtlas made: Phaser 3 (`this.load.atlas`, canvas renderer)
// and PixiJS 8 (`Assets.load` of the JSON) in headless chromium, from a node:http server on
// 127.0.0.1. Every frame is listed with its size, a trimmed frame keeps its source size, and the
// pixels the engine reads from a frame are the source's.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { atlasJson, packAtlas, type TexturePackerJsonHash } from '../../src/imaging/atlas.js';
import { makePixels, toPng, type RGBA } from '../imaging/pixels.js';
import { CHROMIUM, warnWithoutChromium } from '../support/chromium.js';
import { startEngineStage, type EngineStage } from '../support/engine-page.js';
import { runCli, tempHome } from '../support/cli.js';

warnWithoutChromium('atlas engine test');

const moduleFile = (relative: string) => fs.readFileSync(new URL(`../../node_modules/${relative}`, import.meta.url));

/** Opaque frames (a canvas reads half-transparent pixels back premultiplied), one with transparent borders to trim. */
const FRAMES: { name: string; width: number; height: number; colour: (x: number, y: number) => RGBA }[] = [
  { name: 'knight/walk-0', width: 12, height: 20, colour: (x, y) => [x * 20, y * 12, 40, 255] },
  { name: 'knight/walk-1', width: 12, height: 20, colour: (x, y) => [x * 20, 40, y * 12, 255] },
  { name: 'coin', width: 9, height: 9, colour: (x, y) => [250, 200 - x * 10, y * 25, 255] },
  { name: 'banner', width: 40, height: 6, colour: (x) => [x * 6, 0, 255 - x * 6, 255] },
  // Content at (4,3) to (11,8) of 16×12: trimmed to 8×6.
  { name: 'gem', width: 16, height: 12, colour: (x, y) => (x >= 4 && x < 12 && y >= 3 && y < 9 ? [30, 220, 90 + x, 255] : [0, 0, 0, 0]) },
];

describe.skipIf(!CHROMIUM)('an atlas in real engines', () => {
  let stage: EngineStage;
  let data: TexturePackerJsonHash;
  const requests: string[] = [];
  /** What the server serves: path → [content type, bytes]. */
  let files: Record<string, [string, Buffer]> = {};

  beforeAll(async () => {
    const frames = await Promise.all(
      FRAMES.map(async (frame) => ({ name: frame.name, bytes: await toPng(makePixels(frame.width, frame.height, frame.colour)) })),
    );
    const atlas = await packAtlas(frames, { padding: 2, extrude: 1, maxSize: 256, trim: true, image: 'sheet.png' });
    data = atlas.data;
    files = {
      '/phaser.min.js': ['text/javascript', moduleFile('phaser/dist/phaser.min.js')],
      '/pixi.min.js': ['text/javascript', moduleFile('pixi.js/dist/pixi.min.js')],
      '/assets/sheet.png': ['image/png', atlas.png],
      '/assets/sheet.json': ['application/json', Buffer.from(atlasJson(atlas.data))],
      '/phaser.html': ['text/html', Buffer.from('<!doctype html><meta charset="utf-8"><body><script src="/phaser.min.js"></script>')],
      '/pixi.html': ['text/html', Buffer.from('<!doctype html><meta charset="utf-8"><body><script src="/pixi.min.js"></script>')],
    };
    stage = await startEngineStage(files, { onRequest: (url) => requests.push(url) });
  });
  afterAll(async () => {
    await stage?.close();
  });

  const open = (file: string) => stage.open(file);

  it('Phaser 3 lists every frame, with its size, source size and pixels', async () => {
    const { page, problems } = await open('phaser.html');
    const seen = await page.evaluate(
      () =>
        new Promise<{ names: string[]; frames: Record<string, number[]>; pixels: number[][]; size: number[] }>((resolve, reject) => {
          setTimeout(() => reject(new Error('Phaser did not start in 8 s')), 8_000);
          const Phaser = (window as any).Phaser;
          new Phaser.Game({
            type: Phaser.CANVAS,
            width: 32,
            height: 32,
            banner: false,
            audio: { noAudio: true },
            scene: {
              preload(this: any) {
                this.load.on('loaderror', (file: any) => reject(new Error(`Phaser could not load ${file.src}`)));
                this.load.atlas('sheet', '/assets/sheet.png', '/assets/sheet.json');
              },
              create(this: any) {
                const texture = this.textures.get('sheet');
                const names: string[] = texture.getFrameNames();
                const frames = Object.fromEntries(
                  names.map((name) => {
                    const frame = texture.get(name);
                    return [name, [frame.cutX, frame.cutY, frame.cutWidth, frame.cutHeight, frame.realWidth, frame.realHeight]];
                  }),
                );
                const pixel = (x: number, y: number, name: string) => {
                  const colour = this.textures.getPixel(x, y, 'sheet', name);
                  return [colour.red, colour.green, colour.blue, colour.alpha];
                };
                const pixels = [pixel(0, 0, 'coin'), pixel(8, 8, 'coin'), pixel(39, 5, 'banner'), pixel(3, 17, 'knight/walk-1')];
                resolve({ names, frames, pixels, size: [texture.source[0].width, texture.source[0].height] });
              },
            },
          });
        }),
    );
    expect(seen.names.sort()).toEqual(Object.keys(data.frames).sort());
    expect(seen.names).toHaveLength(FRAMES.length);
    for (const [name, entry] of Object.entries(data.frames)) {
      const { x, y, w, h } = entry.frame;
      expect(seen.frames[name], name).toEqual([x, y, w, h, entry.sourceSize.w, entry.sourceSize.h]);
    }
    expect(seen.frames.gem).toEqual([data.frames.gem!.frame.x, data.frames.gem!.frame.y, 8, 6, 16, 12]);
    expect(seen.frames.coin!.slice(2)).toEqual([9, 9, 9, 9]);
    const colour = (name: string, x: number, y: number) => [...FRAMES.find((frame) => frame.name === name)!.colour(x, y)];
    expect(seen.pixels).toEqual([colour('coin', 0, 0), colour('coin', 8, 8), colour('banner', 39, 5), colour('knight/walk-1', 3, 17)]);
    expect(seen.size).toEqual([data.meta.size.w, data.meta.size.h]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Phaser 3 loads the atlas `assetgen build` made against the mock: every frame listed, a frame’s size as its icon', async () => {
    const home = tempHome();
    try {
      fs.writeFileSync(
        path.join(home.cwd, 'assetgen.yaml'),
        `defaults: { agent: icon-forge, out: icons/ }
assets:
  - { id: sword, prompt: a rusty sword }
  - { id: shield, prompt: a wooden shield }
  - { id: gem, prompt: a blue gem }
  - { id: icons, sheet: { from: ["*"] }, out: sheets/icons.png }
`,
      );
      const built = await runCli(['build', '--mock'], { cwd: home.cwd, env: home.env });
      expect(built.code, built.stderr).toBe(0);
      const png = fs.readFileSync(path.join(home.cwd, 'sheets/icons.png'));
      const json = fs.readFileSync(path.join(home.cwd, 'sheets/icons.json'));
      const icon = await import('sharp').then((sharp) => sharp.default(path.join(home.cwd, 'icons/gem.png')).metadata());
      files['/built/icons.png'] = ['image/png', png];
      files['/built/icons.json'] = ['application/json', json];
      const { page, problems } = await open('phaser.html');
      const seen = await page.evaluate(
        () =>
          new Promise<{ names: string[]; gem: number[] }>((resolve, reject) => {
            setTimeout(() => reject(new Error('Phaser did not start in 8 s')), 8_000);
            const Phaser = (window as any).Phaser;
            new Phaser.Game({
              type: Phaser.CANVAS,
              width: 32,
              height: 32,
              banner: false,
              audio: { noAudio: true },
              scene: {
                preload(this: any) {
                  this.load.on('loaderror', (file: any) => reject(new Error(`Phaser could not load ${file.src}`)));
                  this.load.atlas('built', '/built/icons.png', '/built/icons.json');
                },
                create(this: any) {
                  const texture = this.textures.get('built');
                  const gem = texture.get('gem');
                  resolve({ names: texture.getFrameNames(), gem: [gem.width, gem.height] });
                },
              },
            });
          }),
      );
      expect(seen.names.sort()).toEqual(['gem', 'shield', 'sword']);
      expect(seen.gem).toEqual([icon.width, icon.height]);
      expect((JSON.parse(json.toString()) as TexturePackerJsonHash).meta.image).toBe('icons.png');
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      home.remove();
    }
  });

  it('PixiJS 8 Assets.load gives a spritesheet with every frame, its size and its source size', async () => {
    const { page, problems } = await open('pixi.html');
    const seen = await page.evaluate(async () => {
      const PIXI = (window as any).PIXI;
      const sheet = await PIXI.Assets.load('/assets/sheet.json');
      const frames: Record<string, number[]> = {};
      for (const [name, texture] of Object.entries<any>(sheet.textures)) {
        frames[name] = [
          texture.frame.x,
          texture.frame.y,
          texture.frame.width,
          texture.frame.height,
          texture.orig.width,
          texture.orig.height,
        ];
      }
      return { frames, size: [sheet.textureSource.width, sheet.textureSource.height] };
    });
    expect(Object.keys(seen.frames).sort()).toEqual(Object.keys(data.frames).sort());
    for (const [name, entry] of Object.entries(data.frames)) {
      const { x, y, w, h } = entry.frame;
      expect(seen.frames[name], name).toEqual([x, y, w, h, entry.sourceSize.w, entry.sourceSize.h]);
    }
    expect(seen.size).toEqual([data.meta.size.w, data.meta.size.h]);
    // The image came from meta.image, beside the JSON.
    expect(requests).toContain('/assets/sheet.png');
    expect(problems).toEqual([]);
    await page.close();
  });
});
