// The lines `assetgen init --engine phaser|pixi` prints do what its docs say, in the real engines
// (Phaser 3 and PixiJS 8 in headless chromium, served from node:http on 127.0.0.1): the snippet
// taken from the real CLI's --json, run as printed. A 2×1 image (red | blue) drawn four times its
// size shows pure red where it meets blue with the line (nearest), a blend without it (linear).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePixels, toPng } from '../imaging/pixels.js';
import { CHROMIUM, warnWithoutChromium } from '../support/chromium.js';
import { startEngineStage, type EngineStage } from '../support/engine-page.js';
import { parseJson, runCli, tempHome } from '../support/cli.js';

warnWithoutChromium('engine snippet test');

const moduleFile = (relative: string) => fs.readFileSync(new URL(`../../node_modules/${relative}`, import.meta.url));

/** The snippet `init --engine <engine>` prints (its --json; a dry run writes nothing). */
async function snippetOf(engine: 'phaser' | 'pixi'): Promise<string> {
  const home = tempHome();
  try {
    const result = await runCli(['init', '--engine', engine, '--dry-run', '--json'], { env: home.env, cwd: home.cwd });
    expect(result.code, result.stderr).toBe(0);
    return (parseJson(result).snippet as { code: string }).code;
  } finally {
    home.remove();
  }
}

describe.skipIf(!CHROMIUM)('the engine lines init prints, in real engines', () => {
  let stage: EngineStage;
  let files: Record<string, [string, Buffer]> = {};

  beforeAll(async () => {
    const twoPixels = await toPng(makePixels(2, 1, (x) => (x === 0 ? [255, 0, 0, 255] : [0, 0, 255, 255])));
    const page = (script: string) => Buffer.from(`<!doctype html><meta charset="utf-8"><body><script src="/${script}"></script>`);
    files = {
      '/phaser.min.js': ['text/javascript', moduleFile('phaser/dist/phaser.min.js')],
      '/pixi.min.js': ['text/javascript', moduleFile('pixi.js/dist/pixi.min.js')],
      '/two.png': ['image/png', twoPixels],
      '/phaser.html': ['text/html', page('phaser.min.js')],
      '/pixi.html': ['text/html', page('pixi.min.js')],
    };
    stage = await startEngineStage(files);
  });
  afterAll(async () => {
    await stage?.close();
  });

  const open = (file: string) => stage.open(file);

  it('PixiJS 8: the printed line makes every texture loaded after it nearest (linear without it)', async () => {
    const code = await snippetOf('pixi');
    // As printed, for the page's global build: `import { TextureStyle } from 'pixi.js'` is `PIXI.TextureStyle`.
    const script = code.replace("import { TextureStyle } from 'pixi.js';", 'const { TextureStyle } = window.PIXI;');
    expect(script).not.toContain('import ');
    const scaleModes: string[] = [];
    for (const withLine of [false, true]) {
      const { page, problems } = await open('pixi.html');
      if (withLine) await page.evaluate(script);
      scaleModes.push(
        await page.evaluate(async () => {
          const texture = await (window as any).PIXI.Assets.load('/two.png');
          return texture.source.scaleMode as string;
        }),
      );
      expect(problems).toEqual([]);
      await page.close();
    }
    expect(scaleModes).toEqual(['linear', 'nearest']);
  });

  it('Phaser 3: pixelArt: true, as printed, draws a scaled image without blending its pixels', async () => {
    const code = await snippetOf('phaser');
    // The printed config is `new Phaser.Game({ …your config… pixelArt: true, })`: its keys, in a config of ours.
    const printed = /^ {2}(\w+): (true|false),/m.exec(code);
    expect(printed?.slice(1)).toEqual(['pixelArt', 'true']);
    const drawn: number[][] = [];
    for (const extra of [{}, { [printed![1]!]: printed![2] === 'true' }]) {
      const { page, problems } = await open('phaser.html');
      drawn.push(
        await page.evaluate(
          (config) =>
            new Promise<number[]>((resolve, reject) => {
              setTimeout(() => reject(new Error('Phaser did not draw in 8 s')), 8_000);
              const Phaser = (window as any).Phaser;
              const game = new Phaser.Game({
                type: Phaser.CANVAS,
                width: 8,
                height: 4,
                banner: false,
                audio: { noAudio: true },
                ...config,
                scene: {
                  preload(this: any) {
                    this.load.image('two', '/two.png');
                  },
                  create(this: any) {
                    this.add.image(0, 0, 'two').setOrigin(0, 0).setScale(4);
                    game.events.once('postrender', () => {
                      // Pixel 3 of 8 lies between the red texel's centre and the blue one's.
                      resolve([...game.canvas.getContext('2d').getImageData(3, 2, 1, 1).data]);
                    });
                  },
                },
              });
            }),
          extra,
        ),
      );
      expect(problems).toEqual([]);
      await page.close();
    }
    const [smooth, crisp] = drawn;
    expect(crisp).toEqual([255, 0, 0, 255]);
    expect(smooth![2]).toBeGreaterThan(0); // linear: some blue blended in
  });
});
