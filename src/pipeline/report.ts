// The build report's data: each asset's card for the gallery (./gallery.ts), from a build's
// outcomes or, without a build, from the plan (manifest + lock + files on disk); the files' bytes
// read from the project; the page written atomically. Prints nothing.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../files/atomic.js';
import { mediaInfo } from '../files/media-info.js';
import type { GalleryAsset, GalleryFile, GalleryStatus } from './gallery.js';
import type { Lock, LockEntry } from './lock.js';
import type { ManifestAsset } from './manifest.js';
import { describePostStep, postOf } from './provenance.js';
import type { AssetResult } from './outcome.js';
import type { Plan, PlanItem } from './plan.js';

/** Files larger than this are not embedded (the card says so): the page has to open in a browser. */
export const MAX_EMBED_BYTES = 64 * 1024 * 1024;

/** A card before its files are read: the files are project paths. */
export type Card = Omit<GalleryAsset, 'files'> & { files: string[] };

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
  const entry = lock.assets[item.id];
  const base = {
    ...describe(item),
    ...postSteps(entry, item.asset),
    credits: entry?.credits ?? null,
    creditsWhen: 'when built',
    files: paths(item),
  };
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
    const entry = lock.assets[item.id];
    const base = {
      ...describe(item),
      ...postSteps(entry, item.asset),
      credits: entry?.credits ?? null,
      creditsWhen: 'when built',
      files: paths(item),
    };
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
            : 'the next build makes it again';
      cards.push({ ...base, status: 'skipped', reason: [`${why}: ${next}`, ...earlier(item)].join(' — ') });
    }
  }
  return { cards, gone };
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

/** Reads each card's files under `root`: bytes when it is a regular file small enough, else why not. */
export async function loadCards(root: string, cards: Card[]): Promise<GalleryAsset[]> {
  return Promise.all(cards.map(async (card) => ({ ...card, files: await Promise.all(card.files.map((file) => loadFile(root, file))) })));
}

async function loadFile(root: string, file: string): Promise<GalleryFile> {
  const absolute = path.resolve(root, ...file.split('/'));
  try {
    const stat = await fs.promises.stat(absolute);
    if (!stat.isFile()) return { path: file, bytes: null, problem: 'not a file' };
    if (stat.size > MAX_EMBED_BYTES)
      return { path: file, bytes: null, problem: `too large to embed (${Math.round(stat.size / 1024 / 1024)} MB)` };
    const bytes = await fs.promises.readFile(absolute);
    // The pixel size from the header (a reviewer checks a "64x64" asset is 64×64).
    const { width, height } = mediaInfo(absolute);
    return { path: file, bytes, ...(width && height ? { width, height } : {}) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { path: file, bytes: null, problem: code === 'ENOENT' ? 'missing' : `cannot read (${code ?? 'error'})` };
  }
}

/** Writes the page: its folder made if needed, a temporary file beside it, then a rename. */
export async function writeReportFile(file: string, html: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, html);
}
