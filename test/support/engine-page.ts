// A stage for tests that load a game engine in headless chromium: a node:http server on 127.0.0.1
// serving fixed files (the engine's script, the atlas, a page), the browser, and pages that record
// every console error or warning, page error and failed request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';

/** What the server serves: path (`/phaser.html`) → [content type, bytes]. */
export type ServedFiles = Record<string, [string, Buffer]>;

export interface EngineStage {
  origin: string;
  browser: Browser;
  /** Opens `${origin}/${file}`; `problems` collects what went wrong on the page from then on. */
  open(file: string): Promise<{ page: Page; problems: string[] }>;
  close(): Promise<void>;
}

/** Serves `files` (read at each request, so a test may add to it) and launches chromium. */
export async function startEngineStage(
  files: ServedFiles,
  options: { pageTimeoutMs?: number; onRequest?: (url: string) => void } = {},
): Promise<EngineStage> {
  const server = http.createServer((req, res) => {
    options.onRequest?.(req.url ?? '');
    // The browser asks for a favicon on its own: no content, no console error.
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    const file = files[req.url ?? ''];
    res.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain' }).end(file?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const browser = await launchChromium().catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return {
    origin,
    browser,
    async open(file) {
      const page = await browser.newPage();
      page.setDefaultTimeout(options.pageTimeoutMs ?? 10_000);
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
      await page.goto(`${origin}/${file}`, { waitUntil: 'load', timeout: 10_000 });
      return { page, problems };
    },
    async close() {
      await browser.close();
      await close();
    },
  };
}
