// The gallery renderer on its own: hostile text from the manifest, the lock or the service stays
// text; the only URLs are data: URIs of allow-listed types decided by the bytes; missing files are
// placeholders; statuses and totals as the model says.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GALLERY_CSP,
  GALLERY_STATUSES,
  escapeHtml,
  galleryTotals,
  renderGallery,
  sniffMedia,
  type Gallery,
  type GalleryAsset,
} from '../../src/pipeline/gallery.js';
import { renderVideo } from '../../src/mock/media/gif.js';
import { renderPng } from '../../src/mock/media/png.js';

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
  'lang charset http-equiv content name class data-id data-status datetime role aria-label src alt controls muted loop playsinline preload'.split(
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
    const style = /<style>([^]*)<\/style>/.exec(renderGallery(gallery([asset()])))![1]!;
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
          `<article class="card s-${status}" data-id="${id}" data-status="${status}">[^]*?<span class="badge s-${status}">${status}</span>`,
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

it('docs/build.md states the policy and the statuses the renderer has', () => {
  const doc = fs.readFileSync(new URL('../../docs/build.md', import.meta.url), 'utf8');
  expect(doc).toContain(`<meta http-equiv="Content-Security-Policy" content="${GALLERY_CSP}">`);
  const table = doc.slice(doc.indexOf('| status | after a build |'));
  for (const status of GALLERY_STATUSES) expect(table).toContain(`| \`${status}\` |`);
});
