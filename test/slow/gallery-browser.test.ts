// The gallery in a real browser: Debian's chromium (or CHROMIUM_PATH) driven by playwright-core
// opens the report the real CLI wrote after a build against the mock, from a file:// URL. Every
// image decodes, nothing is logged as an error or fetched, the page works in light and dark, and a
// screenshot is kept in the test's temp dir. A real WebM (recorded by the same chromium) plays as a
// <video> under the page's CSP. Without chromium the suite is skipped, and says so.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGallery } from '../../src/pipeline/gallery.js';
import { readLock } from '../../src/pipeline/lock.js';
import { runCli, tempHome } from '../support/cli.js';
import { CHROMIUM, launchChromium, warnWithoutChromium } from '../support/chromium.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { addTakes, pngOf } from '../support/takes.js';

warnWithoutChromium('gallery browser test');

const MANIFEST = fs.readFileSync(new URL('../project/fixtures/gallery.yaml', import.meta.url), 'utf8');

describe.skipIf(!CHROMIUM)('the gallery in chromium', () => {
  let mock: MockHandle;
  let home: ReturnType<typeof tempHome>;
  let browser: Browser;
  let failed = false;

  beforeAll(async () => {
    mock = await startMock({ credits: 10_000 });
    await mock.config({ videoPollAfterMs: 20, videoSteps: 1 });
    home = tempHome();
    fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), MANIFEST);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    // Kept when something failed: the report and the screenshot are there to look at.
    if (failed) console.warn(`gallery browser test: report and screenshot kept in ${home.home}`);
    else home?.remove();
  });

  /** A page that records every console error, page error and request that is not the file or a data: URI. */
  async function open(file: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url().slice(0, 80)}`));
    page.on('request', (request) => {
      if (!/^(data|file):/.test(request.url())) problems.push(`request: ${request.url()}`);
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 10_000 });
    return { page, problems };
  }

  it('opens the report of a real build: every image decoded, no errors, no fetches, light and dark, a screenshot', async () => {
    try {
      const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
      const built = await runCli(['build', '--yes', '--report', 'out/gallery.html'], { env, cwd: home.cwd, timeoutMs: 20_000 });
      expect(built.code, built.stderr).toBe(0);
      const lock = readLock(path.join(home.cwd, 'assetgen.lock'));
      const files = Object.values(lock.assets).flatMap((entry) => entry.files);

      const { page, problems } = await open(path.join(home.cwd, 'out', 'gallery.html'));
      const images = await page.$$eval('img', (imgs) => imgs.map((img) => ({ complete: img.complete, width: img.naturalWidth })));
      // The mock makes PNGs, and animated GIFs for videos: every output is an image here.
      expect(images).toHaveLength(files.length);
      for (const image of images) expect(image.complete && image.width > 0, JSON.stringify(image)).toBe(true);
      expect(await page.locator('article.card').count()).toBe(4);
      // A video asset shows its animation: a <video> for mp4/webm, the GIF the mock sends as an <img>.
      const torch = page.locator('article[data-id="torch"]');
      expect(await torch.locator('video, img[src^="data:image/gif;base64,"]').count()).toBe(1);
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('.badge').allTextContents()).toEqual(['new', 'new', 'new', 'new']);

      // A checkerboard behind each image (transparency shows), and each image's pixel size beside it.
      const checkers = await page.$$eval('img', (imgs) => imgs.map((img) => getComputedStyle(img).backgroundImage));
      for (const checker of checkers) expect(checker).toMatch(/^repeating-conic-gradient\(/);
      const dims = await page.locator('figcaption .dims').allTextContents();
      expect(dims).toHaveLength(files.length);
      for (const text of dims) expect(text).toMatch(/^[1-9]\d*×[1-9]\d* px$/);
      const swordFile = lock.assets.sword!.files[0]!.path;
      const natural = await page.$eval(
        `img[alt="${swordFile}"]`,
        (img) => `${(img as HTMLImageElement).naturalWidth}×${(img as HTMLImageElement).naturalHeight} px`,
      );
      expect(await page.locator('article[data-id="sword"] .dims').textContent()).toBe(natural);

      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await page.emulateMedia({ colorScheme: 'light' });
      const light = await background();
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background()).not.toBe(light);
      await page.emulateMedia({ colorScheme: 'light' });

      const screenshot = path.join(home.home, 'gallery.png');
      await page.screenshot({ path: screenshot, fullPage: true, timeout: 10_000 });
      const png = fs.readFileSync(screenshot);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.length).toBeGreaterThan(10_000);
      expect(problems).toEqual([]);
      await page.close();
    } catch (error) {
      failed = true;
      throw error;
    }
  });

  it('shows an asset’s takes side by side: numbered, the picked one marked, each with its exact pick command and numbers; no fetches', async () => {
    try {
      const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
      // The project as a build left it (built here unless the test above did), then three takes of sword, take 2 picked.
      const built = await runCli(['build', '--yes'], { env, cwd: home.cwd, timeoutMs: 20_000 });
      expect(built.code, built.stderr).toBe(0);
      addTakes(
        home.cwd,
        'sword',
        [
          await pngOf(64, 64, (x, y) => (x >= 8 && x < 24 && y >= 16 && y < 48 ? [210, 30, 30, 255] : [0, 0, 0, 0])),
          await pngOf(48, 48, () => [30, 60, 220, 255]),
          await pngOf(40, 40, (x, y) => ((x - 20) ** 2 + (y - 20) ** 2 < 150 ? [40, 190, 70, 255] : [0, 0, 0, 0])),
        ],
        2,
      );
      const report = await runCli(['report', '-o', 'out/takes.html'], { env, cwd: home.cwd, timeoutMs: 20_000 });
      expect(report.code, report.stderr).toBe(0);

      const { page, problems } = await open(path.join(home.cwd, 'out', 'takes.html'));
      const sword = page.locator('article[data-id="sword"]');
      const takes = sword.locator('li.take');
      expect(await takes.count()).toBe(3);
      expect(await takes.evaluateAll((items) => items.map((item) => item.getAttribute('data-k')))).toEqual(['1', '2', '3']);
      expect(await sword.locator('.take-k').allTextContents()).toEqual(['1', '2', '3']);
      // The picked one: marked in words, framed in the page's "new" green, the others not.
      expect(await sword.locator('li.take.picked').getAttribute('data-k')).toBe('2');
      expect(await sword.locator('li.take .picked-mark').count()).toBe(1);
      expect(await sword.locator('li.take.picked .picked-mark').textContent()).toBe('picked');
      const borders = await takes.evaluateAll((items) => items.map((item) => getComputedStyle(item).borderTopColor));
      expect(borders[1]).not.toBe(borders[0]);
      expect(borders[0]).toBe(borders[2]);
      expect(await sword.locator('h3').textContent()).toBe('Takes 3 · take 2 picked');
      // Each take's exact command, as a person copies it.
      expect(await sword.locator('code.pick').allTextContents()).toEqual([
        'assetgen pick sword 1',
        'assetgen pick sword 2',
        'assetgen pick sword 3',
      ]);
      // Each take's picture decodes at its own size, with its numbers beside it.
      const sizes = await takes.evaluateAll((items) =>
        items.map((item) => {
          const img = item.querySelector('img')!;
          return `${img.complete ? img.naturalWidth : 0}×${img.naturalHeight}`;
        }),
      );
      expect(sizes).toEqual(['64×64', '48×48', '40×40']);
      expect(await takes.first().locator('.metrics').textContent()).toBe('size64×64 pxdrawn16×32 · 13%colours2transparentyescredits10');
      // Other assets have no takes.
      expect(await page.locator('article:not([data-id="sword"]) .takes').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(0);
      await page.screenshot({ path: path.join(home.home, 'takes.png'), fullPage: true, timeout: 10_000 });
      expect(problems).toEqual([]);
      await page.close();
    } catch (error) {
      failed = true;
      throw error;
    }
  });

  it('plays a WebM as a <video> from a data: URI under the page’s CSP', async () => {
    try {
      const webm = await recordWebm(browser);
      const file = path.join(home.home, 'video.html');
      fs.writeFileSync(
        file,
        renderGallery({
          manifest: 'assetgen.yaml',
          generatedAt: new Date().toISOString(),
          source: 'test',
          notes: [],
          credits: { total: 180, label: 'charged by this build' },
          assets: [
            { id: 'clip', kind: 'video', status: 'new', credits: 180, files: [{ path: 'fx/clip.webm', bytes: webm }] },
            {
              id: 'gone',
              kind: 'video',
              status: 'unchanged',
              credits: 180,
              files: [{ path: 'fx/gone.mp4', bytes: null, problem: 'missing' }],
            },
          ],
        }),
      );
      const { page, problems } = await open(file);
      const video = page.locator('article[data-id="clip"] video');
      expect(await video.count()).toBe(1);
      const ready = await video.evaluate(
        (element: HTMLVideoElement) =>
          new Promise<{ readyState: number; width: number; error: number | null }>((resolve) => {
            const done = () => resolve({ readyState: element.readyState, width: element.videoWidth, error: element.error?.code ?? null });
            if (element.readyState >= 1) done();
            element.addEventListener('loadedmetadata', done);
            element.addEventListener('error', done);
            setTimeout(done, 5_000);
          }),
      );
      expect(ready).toMatchObject({ error: null, width: 64 });
      expect(ready.readyState).toBeGreaterThanOrEqual(1);
      expect(await page.locator('article[data-id="gone"] .placeholder').textContent()).toBe('missing');
      expect(await page.locator('img, article[data-id="gone"] video').count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    } catch (error) {
      failed = true;
      throw error;
    }
  });
});

/** A real 64×64 WebM clip, recorded from a canvas by the same chromium (no encoder needed on the machine). */
async function recordWebm(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    const base64 = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 64;
      canvas.height = 64;
      const context = canvas.getContext('2d')!;
      const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: 'video/webm;codecs=vp8' });
      const chunks: Blob[] = [];
      recorder.ondataavailable = (event) => chunks.push(event.data);
      const stopped = new Promise((resolve) => (recorder.onstop = resolve));
      recorder.start();
      for (let frame = 0; frame < 10; frame++) {
        context.fillStyle = `hsl(${frame * 36} 80% 50%)`;
        context.fillRect(0, 0, 64, 64);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      recorder.stop();
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let text = '';
      for (const byte of bytes) text += String.fromCharCode(byte);
      return btoa(text);
    });
    return Buffer.from(base64, 'base64');
  } finally {
    await page.close();
  }
}
