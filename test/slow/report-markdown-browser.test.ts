// The Markdown reports in a real browser, rendered where HTML is allowed (the unsafe setting some
// sites and editors use): a project whose prompts and output folder are hostile (HTML that runs
// script, Markdown images of an outside host, pipes, newlines, backticks, a <textarea> that would
// swallow the rest) is built by the CLI (dist/, in-process) against the mock; `report --disclosure` and `build
// --dry-run --format markdown` are rendered to HTML (test/support/markdown.ts: a real GFM parser)
// and opened in Debian's chromium. No dialog opens, nothing is fetched but the page, and every row
// is there, each prompt shown as written. Without chromium the suite is skipped, and says so.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runInProcess, tempHome } from '../support/cli.js';
import { CHROMIUM, launchChromium, warnWithoutChromium } from '../support/chromium.js';
import { startServer, type TestServer } from '../support/http.js';
import { markdownToHtml } from '../support/markdown.js';
import { startMock, type MockHandle } from '../support/mock.js';

warnWithoutChromium('report Markdown browser test');

/** The folder of one asset's output: markup, a pipe and backticks in a path are legal on disk. */
const HOSTILE_FOLDER = 'assets/<img src=x onerror=alert(9)>|`x`';

const hostilePrompts = (outside: string): string[] => [
  `<img src=x onerror="alert('img')"> a sword`,
  `<script>alert('script')</script> a shield`,
  `![pixel](${outside}/pixel.png) and <img src="${outside}/raw.png"> a gem`,
  'a | b | c \\| d, a potion',
  'line one\n| x | y |\n|---|---|\nline two, a key',
  '`` ` `` backticks ``` and `<b>bold</b>`, a ring',
  `<details open ontoggle="alert('details')">x</details> [click](javascript:alert('link')) &lt;b&gt; *em* ~~del~~, a crown`,
  '<textarea><!-- the rest of the table, a map',
];

describe.skipIf(!CHROMIUM)('Markdown reports of hostile prompts in chromium, HTML allowed', () => {
  let mock: MockHandle;
  let outside: TestServer;
  let home: ReturnType<typeof tempHome>;
  let browser: Browser;
  let prompts: string[];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    mock = await startMock({ credits: 10_000 });
    // Stands for an outside host: anything the page fetches from it is counted.
    outside = await startServer((_req, res) => res.end());
    home = tempHome();
    prompts = hostilePrompts(outside.url);
    const assets = prompts.map((prompt, index) => ({
      id: `item-${index + 1}`,
      prompt,
      ...(index === prompts.length - 1 ? { out: `${HOSTILE_FOLDER}/` } : {}),
    }));
    fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), stringify({ defaults: { agent: 'icon-forge', out: 'assets/' }, assets }));
    env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
    const built = await runInProcess(['build', '--yes'], { env, cwd: home.cwd });
    expect(built.code, built.stderr).toBe(0);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await outside?.close();
    await mock?.close();
    home?.remove();
  });

  /** The Markdown rendered into a page and opened: its dialogs, its requests (the page's own file aside) and its table. */
  async function open(markdown: string, name: string) {
    const file = path.join(home.home, `${name}.html`);
    fs.writeFileSync(
      file,
      `<!doctype html>\n<meta charset="utf-8">\n<title>${name}</title>\n<body>\n${await markdownToHtml(markdown)}</body>\n`,
    );
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const dialogs: string[] = [];
    const requests: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('request', (request) => {
      if (request.url() !== pathToFileURL(file).href) requests.push(request.url());
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 10_000 });
    // The <details> toggle event fires after load: an evaluation round-trip later, it has run if it ever will.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    const rows = await page.$$eval('table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    const scripts = await page.locator('script, img, textarea, details').count();
    await page.close();
    return { dialogs, requests, rows, scripts };
  }

  it('report --disclosure: no dialog, no request, every row, each prompt as written', async () => {
    const report = await runInProcess(['report', '--disclosure'], { env, cwd: home.cwd });
    expect(report.code, report.stderr).toBe(0);
    const { dialogs, requests, rows, scripts } = await open(report.stdout, 'disclosure');
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([]);
    expect(outside.requests).toEqual([]);
    expect(scripts).toBe(0);
    expect(rows).toHaveLength(prompts.length);
    for (const row of rows) expect(row).toHaveLength(9);
    // Rows are in the manifest's order; a prompt's line breaks are spaces (a table row is one line).
    expect(rows.map((row) => row[1])).toEqual(prompts.map((_, index) => `item-${index + 1}`));
    expect(rows.map((row) => row[3])).toEqual(prompts.map((prompt) => prompt.replace(/\n/g, ' ')));
    expect(rows.at(-1)![0]).toBe(`${HOSTILE_FOLDER}/item-${prompts.length}.png`);
  });

  it('build --dry-run --format markdown: no dialog, no request, every row, the hostile path as written', async () => {
    fs.rmSync(path.join(home.cwd, HOSTILE_FOLDER, `item-${prompts.length}.png`));
    const plan = await runInProcess(['build', '--dry-run', '--format', 'markdown'], { env, cwd: home.cwd });
    expect(plan.code, plan.stderr).toBe(0);
    const { dialogs, requests, rows, scripts } = await open(plan.stdout, 'plan');
    expect([dialogs, requests, outside.requests, scripts]).toEqual([[], [], [], 0]);
    expect(rows).toEqual([[`item-${prompts.length}`, 'missing', 'generate', '10', `${HOSTILE_FOLDER}/item-${prompts.length}.png missing`]]);
  });
});
