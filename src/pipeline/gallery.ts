// The build gallery: one self-contained HTML contact sheet of a project's assets, rendered from a
// plain model (./report.ts builds it from a build's outcomes or from the lock). Pure: no terminal,
// no files. Everything in the model came from the manifest, the lock or the service, so all text is
// escaped, and the only URLs in the page are data: URIs made here from the bytes, with a content
// type from a short allow-list decided by the bytes themselves. No scripts, and a CSP that allows none.
import { sniffExtension } from '../files/media.js';
import type { TakeMetrics } from '../imaging/take-metrics.js';
import type { CheckedFile, UnmeasuredFile } from './checks.js';
import { GALLERY_STYLE } from './gallery-style.js';
import type { AssetKind } from './records.js';
import { escapeHtml } from './markup.js';

export type GalleryStatus = 'new' | 'unchanged' | 'failed' | 'skipped';
export const GALLERY_STATUSES: readonly GalleryStatus[] = ['new', 'unchanged', 'failed', 'skipped'];

export interface GalleryFile {
  /** Relative to the project root. */
  path: string;
  /** The file's bytes; null when there are none to show (`problem` says why: missing, too large). */
  bytes: Uint8Array | null;
  problem?: string;
  /** Pixel size, when the file's header says (images; not a video container). */
  width?: number;
  height?: number;
}

/** A frame's rectangle in its atlas, in pixels. */
export interface GalleryFrame {
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A sheet's atlas: its image shown with the frames its data file names outlined over it. */
export interface GalleryAtlas {
  /** The atlas image and its data file (TexturePacker JSON), by project path. */
  image: string;
  data: string;
  /** How many frames the data file lists; null when it could not be read. */
  count: number | null;
  /** The frames outlined: wholly inside the image, at most a few hundred. */
  frames: GalleryFrame[];
  /** What is not outlined, and why. */
  notes: string[];
}

/** One take of an asset made with `variants` (records.ts LockedTake), shown beside the others. */
export interface GalleryTake {
  k: number;
  picked: boolean;
  /** What the take's paid call charged; null when not known. */
  credits: number | null;
  /** The command that makes this take the asset's output (free), runnable as shown. */
  pick: string;
  /** The numbers beside each take (imaging/take-metrics.ts); absent when the file could not be read. */
  metrics?: TakeMetrics;
  /** The take's file (its `problem` says why it is not shown). */
  file: GalleryFile;
}

export interface GalleryAsset {
  id: string;
  kind: AssetKind;
  prompt?: string;
  workflow?: string;
  set?: Record<string, string>;
  agent?: string;
  status: GalleryStatus;
  /** Credits charged for what the card shows; null when none are known. */
  credits: number | null;
  /** When they were charged, e.g. "this build", "when built". */
  creditsWhen?: string;
  /** Why it failed or was skipped, or a note (edited by hand). */
  reason?: string;
  /** The command that picks up paid work left unfinished. */
  resume?: string;
  /** The post steps applied after download (as the lock records them), for people. */
  post?: string[];
  /** A sheet's atlas and frames (its image is among `files`, its data file is not). */
  atlas?: GalleryAtlas;
  files: GalleryFile[];
  /** An asset with takes: every take, in order of k (the files above are made from the picked one). */
  takes?: GalleryTake[];
  /** `build --check --report`: the figures of its output images (./checks.ts) and the rules they break. */
  checks?: GalleryChecks;
}

/** An asset's part of a check: its files' figures, those not measured, and each broken rule in words. */
export interface GalleryChecks {
  files: Omit<CheckedFile, 'id'>[];
  unmeasured: Omit<UnmeasuredFile, 'id'>[];
  failures: string[];
}

export interface Gallery {
  /** The manifest as the reader should recognise it (a path). */
  manifest: string;
  /** When the gallery was made (ISO 8601). */
  generatedAt: string;
  /** Where the statuses come from, e.g. "after assetgen build". */
  source: string;
  service?: string;
  /** Lines for the header: what is not shown, what was not compared. */
  notes: string[];
  assets: GalleryAsset[];
  /** The credits total and what it counts, e.g. "charged by this build". */
  credits: { total: number; label: string };
}

export interface GalleryTotals {
  assets: number;
  new: number;
  unchanged: number;
  failed: number;
  skipped: number;
  credits: number;
}

export function galleryTotals(gallery: Gallery): GalleryTotals {
  const count = (status: GalleryStatus): number => gallery.assets.filter((asset) => asset.status === status).length;
  return {
    assets: gallery.assets.length,
    new: count('new'),
    unchanged: count('unchanged'),
    failed: count('failed'),
    skipped: count('skipped'),
    credits: gallery.credits.total,
  };
}

/** The page's policy: no scripts, no fetches, nothing but inline styles and data: images and media. */
export const GALLERY_CSP = "default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'";

/** The content types the gallery embeds: the rest are shown as a placeholder, never as a URL. */
export type MediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'video/mp4' | 'video/webm';

/** What the gallery embeds of each format its first bytes show (files/media.ts): a QuickTime .mov is not something browsers play. */
const EMBEDDED: Readonly<Record<string, MediaType>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

/**
 * The media type of a file, from its first bytes (the extension only tells WebM from other
 * Matroska files); undefined for anything that is not one of the allowed types.
 */
export function sniffMedia(bytes: Uint8Array, path: string): MediaType | undefined {
  const extension = sniffExtension(bytes);
  if (extension === '.webm' && !/\.webm$/i.test(path) && !String.fromCharCode(...bytes.subarray(0, 64)).includes('webm')) return undefined;
  return extension && Object.hasOwn(EMBEDDED, extension) ? EMBEDDED[extension] : undefined;
}

const h = escapeHtml;

export function renderGallery(gallery: Gallery): string {
  const totals = galleryTotals(gallery);
  const title = `assetgen gallery — ${gallery.manifest}`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${h(GALLERY_CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="generator" content="assetgen">',
    `<title>${h(title)}</title>`,
    `<style>${GALLERY_STYLE}</style>`,
    '</head>',
    '<body>',
    renderHeader(gallery, totals),
    gallery.assets.length
      ? `<main class="grid">\n${gallery.assets.map(renderCard).join('\n')}\n</main>`
      : '<main class="empty"><p>No assets to show.</p></main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function renderHeader(gallery: Gallery, totals: GalleryTotals): string {
  const chips = GALLERY_STATUSES.map(
    (status) => `<li class="chip s-${status}${totals[status] ? '' : ' zero'}"><span class="n">${totals[status]}</span> ${status}</li>`,
  );
  const facts = [
    `<dt>manifest</dt><dd><code>${h(gallery.manifest)}</code></dd>`,
    `<dt>made</dt><dd><time datetime="${h(gallery.generatedAt)}">${h(readableTime(gallery.generatedAt))}</time> ${h(gallery.source)}</dd>`,
    ...(gallery.service ? [`<dt>service</dt><dd><code>${h(gallery.service)}</code></dd>`] : []),
  ];
  return [
    '<header class="top">',
    `<h1>assetgen gallery <span class="count">${totals.assets} asset${totals.assets === 1 ? '' : 's'}</span></h1>`,
    `<dl class="facts">${facts.join('')}</dl>`,
    `<ul class="totals">${chips.join('')}<li class="chip credits"><span class="n">${totals.credits}</span> credits ${h(gallery.credits.label)}</li></ul>`,
    ...gallery.notes.map((note) => `<p class="note">${h(note)}</p>`),
    '</header>',
  ].join('\n');
}

function renderCard(asset: GalleryAsset): string {
  const meta: string[] = [`<dt>kind</dt><dd>${h(asset.kind)}</dd>`];
  if (asset.workflow !== undefined) meta.push(`<dt>workflow</dt><dd><code>${h(asset.workflow)}</code></dd>`);
  if (asset.kind === 'image' || asset.kind === 'video')
    meta.push(`<dt>agent</dt><dd>${asset.agent !== undefined ? h(asset.agent) : 'service default'}</dd>`);
  const credits = asset.credits === null ? '—' : `${asset.credits}${asset.creditsWhen ? ` <small>${h(asset.creditsWhen)}</small>` : ''}`;
  meta.push(`<dt>credits</dt><dd>${credits}</dd>`);
  if (asset.post?.length) meta.push(`<dt>post</dt><dd class="post">${asset.post.map(h).join(' → ')}</dd>`);
  if (asset.atlas) {
    meta.push(`<dt>frames</dt><dd>${asset.atlas.count ?? '—'}</dd>`);
    meta.push(`<dt>data</dt><dd><code>${h(asset.atlas.data)}</code></dd>`);
  }
  const renderFile = (file: GalleryFile): string => renderMedia(file, asset.atlas?.image === file.path ? asset.atlas : undefined);
  const set = Object.entries(asset.set ?? {}).map(([node, prompt]) => `<li><code>${h(node)}</code> ${h(prompt)}</li>`);
  const takes = asset.takes?.length ? asset.takes : undefined;
  return [
    `<article class="card s-${asset.status}${takes ? ' has-takes' : ''}" data-id="${h(asset.id)}" data-status="${asset.status}">`,
    `<div class="media${asset.files.length > 1 ? ' multi' : ''}">${asset.files.length ? asset.files.map(renderFile).join('') : placeholder('no file yet')}</div>`,
    takes ? renderTakes(takes) : '',
    '<div class="body">',
    `<div class="title"><h2>${h(asset.id)}</h2><span class="badge s-${asset.status}">${asset.status}</span></div>`,
    asset.prompt !== undefined ? `<p class="prompt">${h(asset.prompt)}</p>` : '',
    set.length ? `<ul class="set">${set.join('')}</ul>` : '',
    `<dl class="meta">${meta.join('')}</dl>`,
    ...(asset.atlas?.notes ?? []).map((note) => `<p class="atlas-note">${h(note)}</p>`),
    asset.checks ? renderChecks(asset.checks) : '',
    asset.reason ? `<p class="reason">${h(asset.reason)}</p>` : '',
    asset.resume ? `<p class="resume">resume: <code>${h(asset.resume)}</code></p>` : '',
    '</div>',
    '</article>',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The takes side by side: each numbered, the picked one marked in words and colour, its numbers
 * and the exact command that picks it (a person copies it; nothing on the page runs anything).
 */
function renderTakes(takes: readonly GalleryTake[]): string {
  const picked = takes.find((take) => take.picked);
  const heading = `<h3>Takes <small>${takes.length}${picked ? ` · take ${picked.k} picked` : ''}</small></h3>`;
  const items = takes.map((take) => {
    const marks = `<span class="take-k" title="take ${take.k}">${take.k}</span>${take.picked ? '<span class="picked-mark">picked</span>' : ''}`;
    const picture = takePicture(take.file);
    const credits = take.credits === null ? '—' : String(take.credits);
    return [
      `<li class="take${take.picked ? ' picked' : ''}" data-k="${take.k}" data-picked="${take.picked}">`,
      `<div class="take-head">${marks}</div>`,
      picture,
      `<dl class="metrics">${take.metrics ? renderMetrics(take.metrics) : ''}<dt>credits</dt><dd>${credits}</dd></dl>`,
      `<p class="pick-line">${take.picked ? 'picked: ' : ''}<code class="pick">${h(take.pick)}</code></p>`,
      '</li>',
    ].join('');
  });
  return `<section class="takes" aria-label="takes">${heading}<ol class="take-list">${items.join('')}</ol></section>`;
}

/** A take's picture (an image the gallery embeds), else a placeholder saying why not. */
function takePicture(file: GalleryFile): string {
  const type = file.bytes ? sniffMedia(file.bytes, file.path) : undefined;
  if (!file.bytes || !type || !type.startsWith('image/'))
    return placeholder(file.problem ?? (file.bytes ? 'not an image the gallery shows' : 'missing'));
  return `<img src="data:${type};base64,${Buffer.from(file.bytes).toString('base64')}" alt="${h(file.path)}">`;
}

/** The numbers beside a take: aids for choosing, not verdicts (docs/imaging.md). */
function renderMetrics(metrics: TakeMetrics): string {
  const bounds = metrics.opaqueBounds;
  const drawn = bounds ? `${bounds.width}×${bounds.height} · ${Math.round(metrics.fill * 100)}%` : 'nothing';
  const colours = `${metrics.colours.atLeast ? '≥' : ''}${metrics.colours.count}`;
  return [
    `<dt>size</dt><dd class="dims">${metrics.width}×${metrics.height} px</dd>`,
    `<dt>drawn</dt><dd>${drawn}</dd>`,
    `<dt>colours</dt><dd>${colours}</dd>`,
    `<dt>transparent</dt><dd>${metrics.transparency ? 'yes' : 'no'}</dd>`,
  ].join('');
}

/** An asset's check figures, a line per image, and its broken rules marked as failures (docs/check.md). */
function renderChecks(checks: GalleryChecks): string {
  const lines = checks.files.map((file) => {
    const figures = [
      `${file.width}×${file.height}`,
      `alpha ${file.alpha ? 'yes' : 'no'}`,
      `fill ${file.fill}`,
      `${file.colors.atLeast ? '>' : ''}${file.colors.count} colours`,
      ...(file.seam !== undefined ? [`seam ${file.seam}`] : []),
      ...(file.outlier
        ? [`outlier distance ${file.outlier.distance}/64 in ${file.outlier.group}${file.outlier.flagged ? ' (outlier)' : ''}`]
        : []),
    ];
    return `<li><code>${h(file.path)}</code> ${h(figures.join(' · '))}</li>`;
  });
  const unmeasured = checks.unmeasured.map((file) => `<li>${file.path ? `<code>${h(file.path)}</code> ` : ''}${h(file.problem)}</li>`);
  const failures = checks.failures.map((failure) => `<li class="check-fail">✗ ${h(failure)}</li>`);
  const verdict = checks.failures.length ? `${checks.failures.length} broken` : 'passed';
  return `<section class="checks" data-checks="${checks.failures.length ? 'failed' : 'passed'}"><h3>Checks <small>${verdict}</small></h3><ul>${[...lines, ...unmeasured, ...failures].join('')}</ul></section>`;
}

function renderMedia(file: GalleryFile, atlas?: GalleryAtlas): string {
  const caption = (type?: string): string =>
    `<figcaption><code>${h(file.path)}</code>${type ? ` <small>${type}${dimensions(file)} · ${size(file.bytes!.length)}</small>` : ''}</figcaption>`;
  if (!file.bytes) return `<figure>${placeholder(file.problem ?? 'missing')}${caption()}</figure>`;
  const type = sniffMedia(file.bytes, file.path);
  if (!type) return `<figure>${placeholder('not an image or video the gallery shows')}${caption()}</figure>`;
  const uri = `data:${type};base64,${Buffer.from(file.bytes).toString('base64')}`;
  const media = type.startsWith('video/')
    ? `<video controls muted loop playsinline preload="metadata" src="${uri}"></video>`
    : `<img src="${uri}" alt="${h(file.path)}">`;
  if (atlas && file.width && file.height && !type.startsWith('video/'))
    return `<figure class="atlas"><div class="frames">${media}${atlas.frames.map((frame) => outline(frame, file.width!, file.height!)).join('')}</div>${caption(type)}</figure>`;
  return `<figure>${media}${caption(type)}</figure>`;
}

/** A frame's box over its atlas, in percent of the atlas's size so it scales with the image; its name on it. */
function outline(frame: GalleryFrame, width: number, height: number): string {
  const percent = (part: number, whole: number): string => `${Number(((part / whole) * 100).toFixed(4))}%`;
  const box = `left:${percent(frame.x, width)};top:${percent(frame.y, height)};width:${percent(frame.w, width)};height:${percent(frame.h, height)}`;
  return `<span class="frame" style="${box}" title="${h(frame.name)}"><span>${h(frame.name)}</span></span>`;
}

/** ` · <span class="dims">64×64 px</span>` when the pixel size is known. */
const dimensions = (file: GalleryFile): string =>
  file.width && file.height ? ` · <span class="dims">${file.width}×${file.height} px</span>` : '';

const placeholder = (text: string): string => `<div class="placeholder" role="img" aria-label="${h(text)}"><span>${h(text)}</span></div>`;

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `2026-11-23 09:12 UTC` from an ISO time; the text as given when it is not one. */
function readableTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}
