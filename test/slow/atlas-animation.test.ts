// One generated strip becomes an animation real engines play: `assetgen build` (the real CLI, the
// real mock behind a proxy that hands out a 4 × 2 walk strip) slices it into 8 frames, trims each,
// and packs them with `animations.walk`; then, in headless chromium, PixiJS 8 plays an
// AnimatedSprite from `sheet.animations.walk` and Phaser 3 creates the animation with the one-liner
// of docs/imaging.md. The frames each engine shows, read back from its canvas, are the strip's
// cells, in order and in place (a trimmed frame drawn where it sat in its cell).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TexturePackerJsonHash } from '../../src/imaging/atlas.js';
import { readLock } from '../../src/pipeline/lock.js';
import { readPixels, toPng } from '../imaging/pixels.js';
import { CHROMIUM, warnWithoutChromium } from '../support/chromium.js';
import { startEngineStage, type EngineStage } from '../support/engine-page.js';
import { runCli, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { startPictureProxy, type PictureProxy } from '../support/picture-proxy.js';
import { MAGENTA, pose, shownFrame, STRIP, walkStrip } from '../support/walk-strip.js';

warnWithoutChromium('atlas animation test');

const moduleFile = (relative: string) => fs.readFileSync(new URL(`../../node_modules/${relative}`, import.meta.url));
const FRAMES = STRIP.columns * STRIP.rows;
const BLACK = [0, 0, 0, 255] as const;
/** Each frame as a game shows it over a black canvas, as hex RGBA pixels row by row. */
const EXPECTED = Array.from({ length: FRAMES }, (_, index) => hexPixels(shownFrame(index + 1, BLACK).data));

function hexPixels(data: Uint8Array | number[]): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < data.length; offset += 4) out.push(Buffer.from(Array.from(data.slice(offset, offset + 4))).toString('hex'));
  return out;
}

// A flat magenta background, as image models are prompted for: `key` makes it transparent before the
// cut (a narrow band: frame 7's body, (216, 62, 211), is 62 from magenta and must stay opaque).
const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - id: hero-walk
    prompt: a knight walking, 4 frames in a row, 2 rows, flat background
    post: [{ key: { color: '#ff00ff', tolerance: 8, softness: 16 } }, { slice: { columns: ${STRIP.columns}, rows: ${STRIP.rows} } }, trim]
  - id: hero
    sheet: { from: [hero-walk], animations: { walk: "hero-walk-*" } }
    out: sheets/hero.png
`;

describe.skipIf(!CHROMIUM)('a sliced strip plays in real engines', () => {
  let mock: MockHandle;
  let proxy: PictureProxy;
  let home: ReturnType<typeof tempHome>;
  let stage: EngineStage;
  let data: TexturePackerJsonHash;
  let files: Record<string, [string, Buffer]> = {};

  beforeAll(async () => {
    mock = await startMock({ credits: 1000 });
    proxy = await startPictureProxy(mock.url, await toPng(walkStrip(MAGENTA)));
    home = tempHome();
    fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), MANIFEST);
    const built = await runCli(['build'], {
      cwd: home.cwd,
      env: { ...home.env, ASSETGEN_BASE_URL: proxy.url, ASSETGEN_API_KEY: mock.apiKey },
      timeoutMs: 60_000,
    });
    expect(built.code, built.stderr).toBe(0);
    const json = fs.readFileSync(path.join(home.cwd, 'sheets/hero.json'));
    data = JSON.parse(json.toString()) as TexturePackerJsonHash;
    files = {
      '/phaser.min.js': ['text/javascript', moduleFile('phaser/dist/phaser.min.js')],
      '/pixi.min.js': ['text/javascript', moduleFile('pixi.js/dist/pixi.min.js')],
      '/built/hero.png': ['image/png', fs.readFileSync(path.join(home.cwd, 'sheets/hero.png'))],
      '/built/hero.json': ['application/json', json],
      '/phaser.html': ['text/html', Buffer.from('<!doctype html><meta charset="utf-8"><body><script src="/phaser.min.js"></script>')],
      '/pixi.html': ['text/html', Buffer.from('<!doctype html><meta charset="utf-8"><body><script src="/pixi.min.js"></script>')],
    };
    stage = await startEngineStage(files);
  }, 90_000);
  afterAll(async () => {
    await stage?.close();
    home?.remove();
    await proxy?.close();
    await mock?.close();
  });

  const open = (file: string) => stage.open(file);

  it('the build made 8 trimmed frames, in order, and the atlas lists them as animations.walk', () => {
    const lock = readLock(path.join(home.cwd, 'assetgen.lock'));
    const entry = lock.assets['hero-walk']!;
    expect(entry.files.map((file) => file.path)).toEqual(Array.from({ length: FRAMES }, (_, index) => `assets/hero-walk-${index + 1}.png`));
    expect(entry.trims).toEqual(
      Array.from({ length: FRAMES }, (_, index) => {
        const body = pose(index + 1);
        return { x: body.left, y: body.top, width: body.width, height: body.height, sourceWidth: STRIP.cell, sourceHeight: STRIP.cell };
      }),
    );
    expect(data.animations).toEqual({ walk: Array.from({ length: FRAMES }, (_, index) => `hero-walk-${index + 1}`) });
    for (let n = 1; n <= FRAMES; n++) {
      const body = pose(n);
      expect(data.frames[`hero-walk-${n}`], `frame ${n}`).toMatchObject({
        trimmed: true,
        spriteSourceSize: { x: body.left, y: body.top, w: body.width, h: body.height },
        sourceSize: { w: STRIP.cell, h: STRIP.cell },
      });
    }
    // One paid call made it all, for the strip.
    expect(proxy.served).toBe(1);
  });

  it('the trimmed frame files are the bodies of the cells', async () => {
    for (let n = 1; n <= FRAMES; n++) {
      const frame = await readPixels(fs.readFileSync(path.join(home.cwd, `assets/hero-walk-${n}.png`)));
      expect([frame.width, frame.height]).toEqual([pose(n).width, pose(n).height]);
    }
  });

  it('PixiJS 8 plays AnimatedSprite(sheet.animations.walk): the frames it shows are the cells, in order', async () => {
    const { page, problems } = await open('pixi.html');
    const shown = await page.evaluate(
      async ({ cell, frames }) => {
        const PIXI = (window as any).PIXI;
        const sheet = await PIXI.Assets.load('/built/hero.json');
        const app = new PIXI.Application();
        await app.init({
          width: cell,
          height: cell,
          background: '#000000',
          preference: 'webgl',
          preserveDrawingBuffer: true,
          antialias: false,
          autoStart: false,
        });
        const sprite = new PIXI.AnimatedSprite(sheet.animations.walk);
        // Stepped by hand, one frame a step: what the ticker does each frame at animationSpeed 1.
        sprite.autoUpdate = false;
        sprite.animationSpeed = 1;
        app.stage.addChild(sprite);
        sprite.play();
        const readBack = document.createElement('canvas');
        readBack.width = cell;
        readBack.height = cell;
        const context = readBack.getContext('2d', { willReadFrequently: true })!;
        const out: { index: number; pixels: number[] }[] = [];
        for (let step = 0; step < frames; step++) {
          app.render();
          context.clearRect(0, 0, cell, cell);
          context.drawImage(app.canvas, 0, 0);
          out.push({ index: sprite.currentFrame, pixels: Array.from(context.getImageData(0, 0, cell, cell).data) });
          sprite.update({ deltaTime: 1 });
        }
        return { out, playing: sprite.playing, total: sprite.totalFrames };
      },
      { cell: STRIP.cell, frames: FRAMES },
    );
    expect(shown.total).toBe(FRAMES);
    expect(shown.playing).toBe(true);
    expect(shown.out.map((frame) => frame.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    shown.out.forEach((frame, index) => expect(hexPixels(frame.pixels), `frame ${index + 1}`).toEqual(EXPECTED[index]));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Phaser 3 creates the animation with the documented one-liner and plays the cells, in order', async () => {
    const { page, problems } = await open('phaser.html');
    const shown = await page.evaluate(
      ({ cell, frames }) =>
        new Promise<{ names: string[]; out: { frame: string; pixels: number[] }[] }>((resolve, reject) => {
          setTimeout(() => reject(new Error('Phaser did not finish in 8 s')), 8_000);
          const Phaser = (window as any).Phaser;
          const game = new Phaser.Game({
            type: Phaser.CANVAS,
            width: cell,
            height: cell,
            backgroundColor: '#000000',
            // Not pixelArt: its roundPixels makes Phaser's canvas renderer draw each sprite half a pixel larger.
            antialias: false,
            roundPixels: false,
            banner: false,
            audio: { noAudio: true },
            scene: {
              preload(this: any) {
                this.load.on('loaderror', (file: any) => reject(new Error(`Phaser could not load ${file.src}`)));
                this.load.atlas('hero', '/built/hero.png', '/built/hero.json');
              },
              create(this: any) {
                // The one-liner of docs/imaging.md, as written there.
                this.anims.create({
                  key: 'walk',
                  frames: this.textures.get('hero').customData.animations.walk.map((frame: string) => ({ key: 'hero', frame })),
                  frameRate: 8,
                  repeat: -1,
                });
                const sprite = this.add.sprite(0, 0, 'hero').setOrigin(0, 0);
                sprite.play('walk');
                // Stepped by hand (nextFrame is the animation's own step); each read after a render.
                sprite.anims.pause();
                const names = this.anims.get('walk').frames.map((frame: any) => frame.textureFrame);
                const out: { frame: string; pixels: number[] }[] = [];
                const read = () => {
                  const pixels = Array.from<number>(game.canvas.getContext('2d').getImageData(0, 0, cell, cell).data);
                  out.push({ frame: sprite.anims.currentFrame.textureFrame, pixels });
                  if (out.length === frames) return resolve({ names, out });
                  sprite.anims.nextFrame();
                  game.events.once('postrender', read);
                };
                game.events.once('postrender', read);
              },
            },
          });
        }),
      { cell: STRIP.cell, frames: FRAMES },
    );
    const names = Array.from({ length: FRAMES }, (_, index) => `hero-walk-${index + 1}`);
    expect(shown.names).toEqual(names);
    expect(shown.out.map((frame) => frame.frame)).toEqual(names);
    shown.out.forEach((frame, index) => expect(hexPixels(frame.pixels), `frame ${index + 1}`).toEqual(EXPECTED[index]));
    expect(problems).toEqual([]);
    await page.close();
  });
});
