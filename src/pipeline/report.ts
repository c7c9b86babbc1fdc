// The build report's data: each asset's card for the gallery (./gallery.ts), from a build's
// outcomes or, without a build, from the plan (manifest + lock + files on disk); the files' bytes
// read from the project; the page written atomically. Prints nothing.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../files/confine.js';
import { mediaInfo } from '../files/media-info.js';
import type { GalleryAsset, GalleryAtlas, GalleryFile, GalleryFrame, GalleryStatus, GalleryTake } from './gallery.js';
import type { Lock, LockEntry, ManifestAsset, Plan, PlanItem } from './records.js';
import { entryOf } from './lock-history.js';
import { lookAtTakes } from './take-review.js';
import { describePostStep, postOf } from './provenance.js';
import type { AssetResult } from './outcome.js';

/** Files larger than this are not embedded (the card says so): the page has to open in a browser. */
export const MAX_EMBED_BYTES = 64 * 1024 * 1024;

/** A sheet's data file larger than this is not parsed (the card says so): a page, not a parser, is the point. */
export const MAX_ATLAS_DATA_BYTES = 8 * 1024 * 1024;
/** At most this many frames are outlined on an atlas (the card says how many it has). */
export const MAX_OUTLINED_FRAMES = 500;
const MAX_FRAME_NAME = 256;

/** A card before its files are read: the files are project paths; the takes as the lock records them. */
export type Card = Omit<GalleryAsset, 'files' | 'takes'> & { files: string[]; takes?: Pick<LockEntry, 'candidates' | 'picked'> };

const EDITED = 'edited by hand since assetgen wrote it: builds leave it alone (--force regenerates)';
const EARLIER = 'shown: the output of an earlier build';

/**
 * Cards after a build: built or resumed → new, unchanged → unchanged, kept (edited by hand) →
 * unchanged with a note (kept because of a file assetgen did not make: skipped), failed → failed,
 * skipped → skipped with its reason. Pruned assets, and assets gone from the manifest, have no
 * card (`gone` counts them).
 */
export function cardsFromBuild(plan: Plan, outcomes: readonly AssetResult[], lock: Lock): { cards: Card[]; gone: number } {
  const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
  const cards: Card[] = [];
  for (const item of plan.items) {
    const result = byId.get(item.id);
    if (item.status !== 'removed' && result && result.outcome !== 'pruned') cards.push(buildCard(item, result, lock));
  }
  return { cards, gone: plan.items.filter((item) => item.status === 'removed').length };
}

function buildCard(item: PlanItem, result: AssetResult, lock: Lock): Card {
  // By default the card shows what the lock recorded before the build, and what that cost.
  const entry = entryOf(lock, item.id);
  const base = recordedCard(item, entry);
  const thisBuild = { credits: result.credits, creditsWhen: 'this build' };
  switch (result.outcome) {
    case 'built':
      return { ...base, ...thisBuild, status: 'new', files: result.files };
    case 'resumed':
      return {
        ...base,
        ...thisBuild,
        status: 'new',
        files: result.files,
        reason: `resumed: paid in an earlier build that was interrupted${typeof result.cost === 'number' ? `; ${result.cost} credits in all` : ''}`,
      };
    case 'unchanged':
      return { ...base, status: 'unchanged' };
    case 'kept':
      return item.status === 'edited'
        ? { ...base, status: 'unchanged', reason: EDITED }
        : { ...base, status: 'skipped', reason: item.reasons.join('; ') };
    default: {
      const status: GalleryStatus = result.outcome === 'failed' ? 'failed' : 'skipped';
      const reason = [result.reason ?? status, ...earlier(item)].join(' — ');
      return { ...base, ...thisBuild, status, reason, ...(result.resume ? { resume: result.resume } : {}) };
    }
  }
}

/**
 * Cards from the plan alone (`assetgen report`, `build --dry-run --report`): up to date →
 * unchanged; edited by hand → unchanged with a note; anything a build would do → skipped, with the
 * plan's reason and what the next build does. Assets gone from the manifest have no card.
 */
export function cardsFromPlan(plan: Plan, lock: Lock): { cards: Card[]; gone: number } {
  const cards: Card[] = [];
  let gone = 0;
  for (const item of plan.items) {
    if (item.status === 'removed') {
      gone++;
      continue;
    }
    const entry = entryOf(lock, item.id);
    const base = recordedCard(item, entry);
    const why = item.reasons.join('; ');
    if (item.action === 'none') cards.push({ ...base, status: 'unchanged' });
    else if (item.action === 'keep' && item.status === 'edited') cards.push({ ...base, status: 'unchanged', reason: EDITED });
    else if (item.action === 'keep') cards.push({ ...base, status: 'skipped', reason: why });
    else if (item.status === 'new') cards.push({ ...base, status: 'skipped', reason: why });
    else {
      const next =
        item.action === 'resume'
          ? 'the next build resumes it'
          : item.action === 'reprocess'
            ? 'the next build re-processes it, free'
            : item.action === 'move'
              ? 'the next build moves it there, free'
              : 'the next build makes it again';
      cards.push({ ...base, status: 'skipped', reason: [`${why}: ${next}`, ...earlier(item)].join(' — ') });
    }
  }
  return { cards, gone };
}

/** A card as the lock recorded the asset: its description, post steps, what it cost when built, its files. */
function recordedCard(item: PlanItem, entry: LockEntry | undefined) {
  const inFlight = entry?.job && entry.credits === undefined ? paidSoFar(entry) : undefined;
  return {
    ...describe(item),
    ...postSteps(entry, item.asset),
    credits: inFlight ?? entry?.credits ?? null,
    creditsWhen: inFlight !== undefined ? 'paid so far (job in flight)' : 'when built',
    files: paths(item),
    ...(entry?.candidates?.length ? { takes: { candidates: entry.candidates, picked: entry.picked } } : {}),
  };
}

/**
 * What the lock says an asset whose job is in flight has paid so far: its takes made and the job's
 * charges; undefined when a part is not known (a poll's answer, a take's charge).
 */
function paidSoFar(entry: LockEntry): number | undefined {
  if (entry.job?.credits === undefined) return undefined;
  let total = entry.job.credits;
  // The take in flight is the job's; the others were paid and recorded as they were made.
  for (const take of entry.candidates ?? []) {
    if (take.k === entry.job.take) continue;
    if (take.credits === null) return undefined;
    total += take.credits;
  }
  return total;
}

/** The post steps the lock records for the files shown (read defensively: provenance.ts). */
function postSteps(entry: LockEntry | undefined, asset: ManifestAsset | undefined): { post?: string[] } {
  const steps = entry ? postOf(entry, asset) : undefined;
  return steps ? { post: steps.map(describePostStep) } : {};
}

const paths = (item: PlanItem): string[] => item.files.map((file) => file.path);
/** A card that shows the files of an earlier build says so (when any is still there). */
const earlier = (item: PlanItem): string[] => (item.files.some((file) => file.state !== 'missing') ? [EARLIER] : []);

/** What the manifest says an asset is (a resumed job says what was submitted). */
function describe(item: PlanItem): Pick<GalleryAsset, 'id' | 'kind' | 'prompt' | 'workflow' | 'set' | 'agent'> {
  const asset = item.asset;
  return {
    id: item.id,
    kind: item.kind,
    ...(asset?.prompt !== undefined ? { prompt: asset.prompt.trim() } : {}),
    ...(item.workflow !== undefined ? { workflow: item.workflow } : {}),
    ...(asset?.set ? { set: asset.set } : {}),
    ...(item.agent !== undefined ? { agent: item.agent } : {}),
  };
}

/**
 * Reads each card's files under `root`: bytes when it is a regular file small enough, else why not;
 * a card's takes read and measured too (./takes.ts), each with the command that picks it, as the
 * CLI spells it (`pickCommand`).
 */
export async function loadCards(root: string, cards: Card[], pickCommand: (id: string, k: number) => string): Promise<GalleryAsset[]> {
  return Promise.all(
    cards.map(async ({ takes, ...card }) => {
      const files = await Promise.all(card.files.map((file) => loadFile(root, file)));
      const loaded = takes ? { takes: await loadTakes(root, card.id, takes, pickCommand) } : {};
      return card.kind === 'sheet' ? withAtlas({ ...card, files, ...loaded }) : { ...card, files, ...loaded };
    }),
  );
}

async function loadTakes(
  root: string,
  id: string,
  takes: Pick<LockEntry, 'candidates' | 'picked'>,
  pickCommand: (id: string, k: number) => string,
): Promise<GalleryTake[]> {
  const looked = await lookAtTakes(root, id, takes, { pixels: false });
  return looked.map((take) => {
    const embeddable = take.bytes && take.bytes.length <= MAX_EMBED_BYTES ? take.bytes : null;
    const size = take.metrics ? { width: take.metrics.width, height: take.metrics.height } : {};
    const problem = take.problem ?? (embeddable ? undefined : 'too large to embed');
    return {
      k: take.k,
      picked: take.picked,
      credits: take.credits,
      pick: pickCommand(id, take.k),
      ...(take.metrics ? { metrics: take.metrics } : {}),
      file: { path: take.file, bytes: take.state === 'missing' ? null : embeddable, ...size, ...(problem ? { problem } : {}) },
    };
  });
}

/**
 * A sheet's card shows its atlas (the first page, of several) with the frames its data file names;
 * no data file is a picture (a sheet of several pages has one per page and a multiatlas).
 */
function withAtlas(asset: GalleryAsset): GalleryAsset {
  const isData = (file: GalleryFile) => file.path.toLowerCase().endsWith('.json');
  // Pages in order, from page 0 (`<stem>-<k>.png`): the lock lists files in its own order.
  const pageOf = (file: GalleryFile) => Number(/-(\d{1,6})\.[^./]*$/.exec(file.path)?.[1] ?? -1);
  const pages = asset.files.filter((file) => !isData(file)).sort((a, b) => pageOf(a) - pageOf(b) || (a.path < b.path ? -1 : 1));
  const image = pages[0];
  const dataPath = image && `${image.path.slice(0, image.path.length - path.posix.extname(image.path).length)}.json`;
  const data = asset.files.find((file) => file.path === dataPath) ?? asset.files.find(isData);
  if (!data || !image) return asset;
  const atlas: GalleryAtlas = { image: image.path, data: data.path, ...readAtlasData(data, image) };
  return { ...asset, files: pages, atlas };
}

/**
 * The frames of a TexturePacker JSON file (hash, or array with `filename`) over its atlas image,
 * read as untrusted: bounded size, a frame that is malformed or not wholly inside the image is
 * counted and left out, at most MAX_OUTLINED_FRAMES are kept. Never throws.
 */
export function readAtlasData(data: GalleryFile, image: GalleryFile): Omit<GalleryAtlas, 'image' | 'data'> {
  const none = (why: string): Omit<GalleryAtlas, 'image' | 'data'> => ({ count: null, frames: [], notes: [`frames not shown: ${why}`] });
  if (!data.bytes) return none(`${data.path} ${data.problem ?? 'missing'}`);
  if (data.bytes.length > MAX_ATLAS_DATA_BYTES) return none(`${data.path} is over ${MAX_ATLAS_DATA_BYTES / 1024 / 1024} MB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data.bytes).toString('utf8'));
  } catch {
    return none(`${data.path} is not JSON`);
  }
  const listed = isObject(parsed) ? parsed.frames : undefined;
  const entries: [unknown, unknown][] = Array.isArray(listed)
    ? listed.map((frame: unknown) => [isObject(frame) ? frame.filename : undefined, frame])
    : isObject(listed)
      ? Object.entries(listed)
      : [];
  if (!Array.isArray(listed) && !isObject(listed)) return none(`${data.path} has no frames`);
  const { width, height } = image;
  if (!width || !height) return { count: entries.length, frames: [], notes: ["frames not outlined: the atlas image's size is not known"] };
  const frames: GalleryFrame[] = [];
  let outside = 0;
  for (const [name, value] of entries) {
    const rect = typeof name === 'string' ? frameRect(value, width, height) : undefined;
    if (!rect || typeof name !== 'string') outside++;
    else if (frames.length < MAX_OUTLINED_FRAMES)
      frames.push({ name: name.length > MAX_FRAME_NAME ? `${name.slice(0, MAX_FRAME_NAME)}…` : name, ...rect });
  }
  const notes: string[] = [];
  if (outside) notes.push(`${outside} frame${outside === 1 ? '' : 's'} malformed or outside the ${width}×${height} atlas: not outlined`);
  if (entries.length - outside > frames.length) notes.push(`the first ${frames.length} of ${entries.length - outside} frames outlined`);
  return { count: entries.length, frames, notes };
}

/** A frame's rectangle in the atlas (a rotated frame's is turned), when it is whole numbers wholly inside it. */
function frameRect(value: unknown, width: number, height: number): Omit<GalleryFrame, 'name'> | undefined {
  const frame = isObject(value) && isObject(value.frame) ? value.frame : undefined;
  if (!frame) return undefined;
  const [x, y, w0, h0] = [frame.x, frame.y, frame.w, frame.h];
  if (![x, y, w0, h0].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return undefined;
  const [w, h] = (value as Record<string, unknown>).rotated === true ? [h0 as number, w0 as number] : [w0 as number, h0 as number];
  const [left, top] = [x as number, y as number];
  return w > 0 && h > 0 && left + w <= width && top + h <= height ? { x: left, y: top, w, h } : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

async function loadFile(root: string, file: string): Promise<GalleryFile> {
  const absolute = path.resolve(root, ...file.split('/'));
  try {
    const stat = await fs.promises.stat(absolute);
    if (!stat.isFile()) return { path: file, bytes: null, problem: 'not a file' };
    if (stat.size > MAX_EMBED_BYTES)
      return { path: file, bytes: null, problem: `too large to embed (${Math.round(stat.size / 1024 / 1024)} MB)` };
    const bytes = await readRegularFile(absolute, file);
    // The pixel size from the header (a reviewer checks a "64x64" asset is 64×64).
    const { width, height } = mediaInfo(absolute);
    return { path: file, bytes, ...(width && height ? { width, height } : {}) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { path: file, bytes: null, problem: code === 'ENOENT' ? 'missing' : `cannot read (${code ?? 'error'})` };
  }
}
