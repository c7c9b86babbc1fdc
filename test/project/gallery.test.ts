// The gallery renderer on its own: hostile text from the manifest, the lock or the service stays
// text; the only URLs are data: URIs of allow-listed types decided by the bytes; missing files are
// placeholders; statuses and totals as the model says.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  GALLERY_CSP,
  GALLERY_STATUSES,
  galleryTotals,
  renderGallery,
  sniffMedia,
  type Gallery,
  type GalleryAsset,
} from '../../src/pipeline/gallery.js';
import { escapeHtml } from '../../src/pipeline/markup.js';
import { renderVideo } from '../../src/mock/media/gif.js';
import { renderPng } from '../../src/mock/media/png.js';
import { pickCommand } from '../../src/commands/project/takes.js';
import { loadCards, MAX_ATLAS_DATA_BYTES, MAX_OUTLINED_FRAMES, readAtlasData, type Card } from '../../src/pipeline/report.js';

const PNG = renderPng('icon-forge', 'sword');
const GIF = renderVideo('video', 'torch', 2);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(12)]);
const WEBM = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]), Buffer.from('webm')]);
const HOSTILE = `<script>alert(1)</script>"><img src=x onerror=alert(2)>'`;

const asset = (overrides: Partial<GalleryAsset> = {}): GalleryAsset => ({
  id: 'sword',
  kind: 'image',
  prompt: 'rusty sword',
  agent: 'icon-forge',
  status: 'new',
  credits: 10,
  creditsWhen: 'this build',
  files: [{ path: 'assets/sword.png', bytes: PNG }],
  ...overrides,
});

const gallery = (assets: GalleryAsset[], overrides: Partial<Gallery> = {}): Gallery => ({
  manifest: 'assetgen.yaml',
  generatedAt: '2026-11-23T09:12:44.120Z',
  source: 'after assetgen build',
  service: 'mock',
  notes: [],
  assets,
  credits: { total: 10, label: 'charged by this build' },
  ...overrides,
});

/** Every tag the page opens, with its attributes as written. */
const tags = (html: string): string[] => [...html.matchAll(/<[a-zA-Z][^>]*>/g)].map((match) => match[0]);
/** A tag's attribute names, read as a browser would (values are double-quoted); throws when the tag has anything else in it. */
function attributes(tag: string): string[] {
  const match = /^<\w+((?:\s+[^\s="'<>/]+(?:="[^"]*")?)*)\s*>$/.exec(tag);
  if (!match) throw new Error(`not a well-formed tag: ${tag}`);
  return [...match[1]!.matchAll(/\s+([^\s="'<>/]+)(?:="[^"]*")?/g)].map((m) => m[1]!);
}
const ALLOWED_ATTRIBUTES = new Set(
  'lang charset http-equiv content name class data-id data-status datetime role aria-label src alt controls muted loop playsinline preload style title'.split(
    ' ',
  ),
);
const ALLOWED_TAGS = new Set(
  'html head meta title style body header h1 h2 span dl dt dd code time ul li p main article div figure figcaption img video small'.split(
    ' ',
  ),
);

describe('gallery renderer', () => {
  it('keeps hostile ids, prompts, paths and reasons as text: no tag or attribute of theirs, no script', () => {
    const html = renderGallery(
      gallery(
        [
          asset({
            id: HOSTILE,
            prompt: HOSTILE,
            agent: HOSTILE,
            reason: HOSTILE,
            resume: `assetgen build ${HOSTILE}`,
            files: [{ path: `${HOSTILE}.png`, bytes: PNG }],
          }),
          asset({ id: 'hero', kind: 'workflow', workflow: HOSTILE, set: { [HOSTILE]: HOSTILE }, prompt: undefined, files: [] }),
        ],
        { manifest: HOSTILE, service: HOSTILE, notes: [HOSTILE], source: HOSTILE },
      ),
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img src=x/);
    for (const tag of tags(html)) expect(ALLOWED_TAGS.has(/^<(\w+)/.exec(tag)![1]!), tag).toBe(true);
    // Every attribute is one the renderer writes, never an event handler.
    for (const tag of tags(html)) for (const name of attributes(tag)) expect(ALLOWED_ATTRIBUTES.has(name), `${name} in ${tag}`).toBe(true);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;');
    expect(html.match(/<img /g)).toHaveLength(1);
    expect(escapeHtml('a\u001b[31mb\u0007 & c')).toBe('a[31mb &amp; c');
  });

  it('has a strict CSP, no scripts, and no URL but data: URIs it made', () => {
    const html = renderGallery(
      gallery([
        asset({ prompt: 'see https://evil.example/x.png', files: [{ path: 'a.png', bytes: PNG }] }),
        asset({ id: 'torch', kind: 'video', files: [{ path: 'fx/torch.gif', bytes: GIF }] }),
      ]),
    );
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${GALLERY_CSP.replace(/'/g, '&#39;')}">`);
    expect(GALLERY_CSP).toBe("default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'");
    expect(html).not.toMatch(/<script|<link|<iframe|<object|<embed|@import|url\(/i);
    const urls = [...html.matchAll(/\s(?:src|href|poster|srcset|action)="([^"]*)"/g)].map((match) => match[1]!);
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(url).toMatch(/^data:(image\/(png|gif|jpeg|webp)|video\/(mp4|webm));base64,[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(urls[0]!.split(',')[1]!, 'base64').equals(PNG)).toBe(true);
    expect(urls[1]).toMatch(/^data:image\/gif;base64,/);
  });

  it('decides the type from the bytes: allow-listed images as <img>, mp4 and webm as <video>, the rest as a placeholder', () => {
    expect(sniffMedia(PNG, 'x.jpg')).toBe('image/png');
    expect(sniffMedia(JPEG, 'x')).toBe('image/jpeg');
    expect(sniffMedia(GIF, 'x.mp4')).toBe('image/gif');
    expect(sniffMedia(WEBP, 'x.webp')).toBe('image/webp');
    expect(sniffMedia(MP4, 'x.mp4')).toBe('video/mp4');
    expect(sniffMedia(WEBM, 'x.mkv')).toBe('video/webm');
    expect(sniffMedia(WEBM.subarray(0, 8), 'x.webm')).toBe('video/webm');
    expect(sniffMedia(WEBM.subarray(0, 8), 'x.mkv')).toBeUndefined();
    expect(sniffMedia(Buffer.concat([Buffer.from([0, 0, 0, 0x14]), Buffer.from('ftypqt  ')]), 'x.mov')).toBeUndefined();
    expect(sniffMedia(Buffer.from('<svg onload="alert(1)"/>'), 'x.svg')).toBeUndefined();
    expect(sniffMedia(Buffer.from('<html><script>alert(1)</script>'), 'x.png')).toBeUndefined();
    expect(sniffMedia(Buffer.alloc(0), 'x.png')).toBeUndefined();

    const html = renderGallery(
      gallery([
        asset({
          files: [
            { path: 'a.jpg', bytes: JPEG },
            { path: 'b.webp', bytes: WEBP },
            { path: 'c.svg', bytes: Buffer.from('<svg onload="alert(1)"/>') },
            { path: 'd.png', bytes: Buffer.from('<html><script>alert(1)</script>') },
          ],
        }),
        asset({ id: 'clip', kind: 'video', files: [{ path: 'clip.mp4', bytes: MP4 }] }),
        asset({ id: 'loop', kind: 'video', files: [{ path: 'loop.webm', bytes: WEBM }] }),
      ]),
    );
    expect(html.match(/<img src="data:image\/jpeg;base64,/g)).toHaveLength(1);
    expect(html.match(/<img src="data:image\/webp;base64,/g)).toHaveLength(1);
    expect(html).toMatch(/<video controls muted loop playsinline preload="metadata" src="data:video\/mp4;base64,[^"]+"><\/video>/);
    expect(html).toMatch(/<video controls muted loop [^>]*src="data:video\/webm;base64,/);
    expect(html.match(/not an image or video the gallery shows/g)).toHaveLength(4); // label and text, twice
    expect(html).not.toContain(Buffer.from('<svg onload').toString('base64').slice(0, 12));
    expect(html).not.toMatch(/data:image\/svg|data:text/);
  });

  it('shows a missing file as a placeholder, never a broken <img>; an asset with no file says so', () => {
    const html = renderGallery(
      gallery([
        asset({ files: [{ path: 'assets/sword.png', bytes: null, problem: 'missing' }] }),
        asset({ id: 'big', files: [{ path: 'big.png', bytes: null, problem: 'too large to embed (80 MB)' }] }),
        asset({ id: 'hero', status: 'skipped', files: [] }),
      ]),
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('<div class="placeholder" role="img" aria-label="missing"><span>missing</span></div>');
    expect(html).toContain('too large to embed (80 MB)');
    expect(html).toContain('<span>no file yet</span>');
    expect(html).toContain('<code>assets/sword.png</code>');
  });

  it("shows each image's pixel size, and the post steps applied (escaped), when known", () => {
    const html = renderGallery(
      gallery([
        asset({
          files: [{ path: 'assets/sword.png', bytes: PNG, width: 64, height: 48 }],
          post: ['trim', `resize: {width: 64} ${HOSTILE}`],
        }),
        asset({ id: 'plain', files: [{ path: 'assets/plain.png', bytes: PNG }] }),
      ]),
    );
    const [sword, plain] = html.split('<article').slice(1);
    expect(sword).toContain('<small>image/png · <span class="dims">64×48 px</span> · ');
    expect(sword).toContain(`<dt>post</dt><dd class="post">trim → resize: {width: 64} ${escapeHtml(HOSTILE)}</dd>`);
    expect(plain).not.toContain('class="dims"');
    expect(plain).not.toContain('<dt>post</dt>');
  });

  it('puts a checkerboard behind images (CSS only: transparency shows), not behind videos', () => {
    const style = /<style>([\s\S]*)<\/style>/.exec(renderGallery(gallery([asset()])))![1]!;
    expect(style).toMatch(
      /figure img, figure video, \.placeholder \{[^}]*background: repeating-conic-gradient\(var\(--check-a\) 0 25%, var\(--check-b\) 0 50%\)/,
    );
    expect(style).toMatch(/figure video \{ background: #000; \}/);
    // Two distinct squares, light and dark.
    expect(style.match(/--check-a: (#[0-9a-f]+); --check-b: (#[0-9a-f]+)/g)).toHaveLength(2);
  });

  it('badges each status in words and colour, and totals them in the header', () => {
    const model = gallery(
      [
        asset({ id: 'a', status: 'new' }),
        asset({ id: 'b', status: 'new' }),
        asset({ id: 'c', status: 'unchanged', credits: 4, creditsWhen: 'when built', reason: 'edited by hand since assetgen wrote it' }),
        asset({ id: 'd', status: 'failed', credits: 0, reason: 'the job failed', resume: 'assetgen build d' }),
        asset({ id: 'e', status: 'skipped', credits: null, reason: 'would pass --max-credits 5' }),
      ],
      { credits: { total: 20, label: 'charged by this build' }, notes: ['1 asset gone from the manifest not shown.'] },
    );
    expect(galleryTotals(model)).toEqual({ assets: 5, new: 2, unchanged: 1, failed: 1, skipped: 1, credits: 20 });
    const html = renderGallery(model);
    for (const [id, status] of [
      ['a', 'new'],
      ['c', 'unchanged'],
      ['d', 'failed'],
      ['e', 'skipped'],
    ])
      expect(html).toMatch(
        new RegExp(
          `<article class="card s-${status}" data-id="${id}" data-status="${status}">[\\s\\S]*?<span class="badge s-${status}">${status}</span>`,
        ),
      );
    expect(html).toContain('<li class="chip s-new"><span class="n">2</span> new</li>');
    expect(html).toContain('<li class="chip s-failed"><span class="n">1</span> failed</li>');
    expect(html).toContain('<span class="n">20</span> credits charged by this build');
    expect(html).toContain('5 assets</span>');
    expect(html).toContain('<p class="reason">the job failed</p>');
    expect(html).toContain('resume: <code>assetgen build d</code>');
    expect(html).toContain('<dt>credits</dt><dd>—</dd>');
    expect(html).toContain('<dt>credits</dt><dd>4 <small>when built</small></dd>');
    expect(html).toContain('<p class="note">1 asset gone from the manifest not shown.</p>');
    expect(html).toContain('<time datetime="2026-11-23T09:12:44.120Z">2026-11-23 09:12 UTC</time>');
    expect(html).toMatch(/@media \(prefers-color-scheme: dark\)/);
    expect(renderGallery(gallery([]))).toContain('No assets to show.');
  });

  it('shows a workflow with its overrides, and a video without an agent as the service default', () => {
    const html = renderGallery(
      gallery([
        asset({
          id: 'hero',
          kind: 'workflow',
          workflow: 'wf_sprite_sheet',
          prompt: undefined,
          agent: undefined,
          set: { character: 'a dwarf' },
        }),
        asset({ id: 'torch', kind: 'video', agent: undefined, files: [{ path: 'fx/torch.gif', bytes: GIF }] }),
      ]),
    );
    expect(html).toContain('<ul class="set"><li><code>character</code> a dwarf</li></ul>');
    expect(html).toContain('<dt>workflow</dt><dd><code>wf_sprite_sheet</code></dd>');
    expect(html).toContain('<dt>agent</dt><dd>service default</dd>');
  });
});

describe("a sheet's atlas in the gallery", () => {
  const image = { path: 'assets/icons.png', bytes: PNG, width: 200, height: 100 };
  const json = (value: unknown) => ({ path: 'assets/icons.json', bytes: Buffer.from(JSON.stringify(value)) });
  const frame = (x: unknown, y: unknown, w: unknown, h: unknown, extra: object = {}) => ({ frame: { x, y, w, h }, ...extra });
  const boxes = (html: string) =>
    [...html.matchAll(/<span class="frame" style="([^"]*)" title="([^"]*)"><span>([^<]*)<\/span><\/span>/g)].map((m) => ({
      style: m[1],
      title: m[2],
      text: m[3],
    }));

  it('outlines each frame in percent of the atlas size, named and escaped; the frame count and data file in the card', () => {
    const read = readAtlasData(
      json({ frames: { sword: frame(50, 25, 100, 50), [HOSTILE]: frame(0, 0, 1, 3), third: frame(199, 99, 1, 1) } }),
      image,
    );
    expect(read).toEqual({
      count: 3,
      notes: [],
      frames: [
        { name: 'sword', x: 50, y: 25, w: 100, h: 50 },
        { name: HOSTILE, x: 0, y: 0, w: 1, h: 3 },
        { name: 'third', x: 199, y: 99, w: 1, h: 1 },
      ],
    });
    const html = renderGallery(
      gallery([asset({ id: 'icons', kind: 'sheet', files: [image], atlas: { image: image.path, data: 'assets/icons.json', ...read } })]),
    );
    expect(boxes(html)).toEqual([
      { style: 'left:25%;top:25%;width:50%;height:50%', title: 'sword', text: 'sword' },
      { style: 'left:0%;top:0%;width:0.5%;height:3%', title: escapeHtml(HOSTILE), text: escapeHtml(HOSTILE) },
      { style: 'left:99.5%;top:99%;width:0.5%;height:1%', title: 'third', text: 'third' },
    ]);
    expect(html).toMatch(
      /<figure class="atlas"><div class="frames"><img src="data:image\/png;base64,[^"]+" alt="assets\/icons.png"><span class="frame"/,
    );
    expect(html).toContain('<dt>frames</dt><dd>3</dd><dt>data</dt><dd><code>assets/icons.json</code></dd>');
    expect(html).not.toMatch(/<script|<img src=x/i);
    for (const tag of tags(html)) for (const name of attributes(tag)) expect(ALLOWED_ATTRIBUTES.has(name), `${name} in ${tag}`).toBe(true);
    // A thirds-sized atlas: percentages rounded, never a long fraction.
    const thirds = readAtlasData(json({ frames: { a: frame(1, 1, 1, 1) } }), { ...image, width: 3, height: 3 });
    const page = renderGallery(
      gallery([asset({ files: [{ ...image, width: 3, height: 3 }], atlas: { image: image.path, data: 'd.json', ...thirds } })]),
    );
    expect(boxes(page)[0]!.style).toBe('left:33.3333%;top:33.3333%;width:33.3333%;height:33.3333%');
  });

  it('reads a hostile data file defensively: frames outside the image or malformed are counted, not outlined; never throws', () => {
    const hostile = {
      frames: {
        [`<script>alert(1)</script>`]: frame(10, 10, 20, 20),
        wide: frame(190, 0, 11, 10),
        low: frame(0, 95, 10, 6),
        negative: frame(-1, 0, 5, 5),
        empty: frame(0, 0, 0, 5),
        fraction: frame(0.5, 0, 5, 5),
        text: frame('0', 0, 5, 5),
        huge: frame(0, 0, 1e300, 5),
        none: { rotated: false },
        scalar: 7,
        turned: frame(0, 0, 110, 10, { rotated: true }), // 10 wide, 110 tall in the atlas: too tall (110×10 would fit)
        turnedOk: frame(0, 0, 50, 10, { rotated: true }),
      },
    };
    const read = readAtlasData(json(hostile), image);
    expect(read.count).toBe(12);
    expect(read.frames).toEqual([
      { name: '<script>alert(1)</script>', x: 10, y: 10, w: 20, h: 20 },
      { name: 'turnedOk', x: 0, y: 0, w: 10, h: 50 },
    ]);
    expect(read.notes).toEqual(['10 frames malformed or outside the 200×100 atlas: not outlined']);
    const html = renderGallery(gallery([asset({ kind: 'sheet', files: [image], atlas: { image: image.path, data: 'x.json', ...read } })]));
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('title="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).toContain('<p class="atlas-note">10 frames malformed or outside the 200×100 atlas: not outlined</p>');

    const notShown = (why: string) => ({ count: null, frames: [], notes: [`frames not shown: ${why}`] });
    expect(readAtlasData({ path: 'a.json', bytes: Buffer.from('{"frames": ') }, image)).toEqual(notShown('a.json is not JSON'));
    expect(readAtlasData(json([1, 2]), image)).toEqual(notShown('assets/icons.json has no frames'));
    expect(readAtlasData(json({ frames: 'x' }), image)).toEqual(notShown('assets/icons.json has no frames'));
    expect(readAtlasData({ path: 'a.json', bytes: null, problem: 'missing' }, image)).toEqual(notShown('a.json missing'));
    const big = { path: 'a.json', bytes: Buffer.alloc(MAX_ATLAS_DATA_BYTES + 1, 0x20) };
    expect(readAtlasData(big, image)).toEqual(notShown('a.json is over 8 MB'));
    expect(readAtlasData(json({ frames: { a: frame(0, 0, 1, 1) } }), { path: 'x.png', bytes: PNG })).toEqual({
      count: 1,
      frames: [],
      notes: ["frames not outlined: the atlas image's size is not known"],
    });
    // The JSON-array form names frames by `filename`; one without a name is left out.
    const array = readAtlasData(json({ frames: [{ filename: 'a', ...frame(0, 0, 2, 2) }, frame(0, 0, 2, 2)] }), image);
    expect(array).toMatchObject({ count: 2, frames: [{ name: 'a' }] });
  });

  it(`outlines at most ${MAX_OUTLINED_FRAMES} frames and says so`, () => {
    const frames = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}`, frame(i % 200, 0, 1, 1)]));
    const read = readAtlasData(json({ frames: { ...frames, out: frame(500, 0, 1, 1) } }), image);
    expect(read.count).toBe(601);
    expect(read.frames).toHaveLength(MAX_OUTLINED_FRAMES);
    expect(read.frames.at(-1)!.name).toBe(`f${MAX_OUTLINED_FRAMES - 1}`);
    expect(read.notes).toEqual(['1 frame malformed or outside the 200×100 atlas: not outlined', 'the first 500 of 600 frames outlined']);
    const html = renderGallery(gallery([asset({ kind: 'sheet', files: [image], atlas: { image: image.path, data: 'x.json', ...read } })]));
    expect(boxes(html)).toHaveLength(MAX_OUTLINED_FRAMES);
  });

  it("a sheet's card read from disk: the atlas with its frames, the data file not shown as a picture", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-gallery-atlas-'));
    try {
      fs.mkdirSync(path.join(dir, 'assets'));
      const png = await sharp({ create: { width: 64, height: 32, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .png()
        .toBuffer();
      fs.writeFileSync(path.join(dir, 'assets/icons.png'), png);
      fs.writeFileSync(path.join(dir, 'assets/icons.json'), JSON.stringify({ frames: { a: frame(16, 8, 32, 16), b: frame(60, 0, 8, 8) } }));
      const card: Card = { id: 'icons', kind: 'sheet', status: 'unchanged', credits: 0, files: ['assets/icons.json', 'assets/icons.png'] };
      const [loaded] = await loadCards(dir, [card], pickCommand);
      expect(loaded!.files.map((file) => file.path)).toEqual(['assets/icons.png']);
      expect(loaded!.atlas).toMatchObject({ image: 'assets/icons.png', data: 'assets/icons.json', count: 2, frames: [{ name: 'a' }] });
      const html = renderGallery(gallery([loaded!]));
      expect(boxes(html)).toEqual([{ style: 'left:25%;top:25%;width:50%;height:50%', title: 'a', text: 'a' }]);
      expect(html).not.toContain('not an image or video the gallery shows');
      expect(html.match(/<img /g)).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('docs/build.md states the policy and the statuses the renderer has', () => {
  const doc = fs.readFileSync(new URL('../../docs/build.md', import.meta.url), 'utf8');
  expect(doc).toContain(`<meta http-equiv="Content-Security-Policy" content="${GALLERY_CSP}">`);
  const table = doc.slice(doc.indexOf('| status | after a build |'));
  for (const status of GALLERY_STATUSES) expect(table).toContain(`| \`${status}\` |`);
});
