// What one paid call of an agent or workflow costs, and where that figure comes from: the
// project's lock (observed: what this project was charged), this machine's store (learned: what any
// project here was charged by the same service, src/config/learned-prices.ts) or the manifest's
// `prices` (declared: what the account page or an invoice says), in that order. A video's price is
// the lock's last whole cost of one (its 180 and the polls it took), else the service document's
// (published). Planning looks each asset's price up here (./plan.ts); the build's cap treats a
// declared price as a claim to check on the first call (docs/build.md, "Credits").
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import type { DeclaredPrices, Lock, ManifestAsset, PriceSource } from './records.js';

export type { PriceSource } from './records.js';

export interface Price {
  credits: number;
  source: PriceSource;
}

/** The last charge the lock records per agent (images) or workflow: looked up by every asset a plan generates. */
export type LastCharges = ReadonlyMap<string, number>;

/** Every source of prices a plan may use; `learned` and `declared` are absent when there are none. */
export interface PriceIndex {
  observed: LastCharges;
  learned?: DeclaredPrices;
  declared?: DeclaredPrices;
}

type Priced = Pick<ManifestAsset, 'kind' | 'agent' | 'workflow'>;

/** The lock's index key of an asset's price: its kind and its agent or workflow. */
export const chargeKey = (asset: Priced): string => `${asset.kind}\u0000${asset.kind === 'workflow' ? asset.workflow : asset.agent}`;

/** Where `prices` lists an asset's price (an image's agent, a workflow); undefined for a video (one published price). */
export function priceName(asset: Priced): { section: keyof DeclaredPrices; id: string } | undefined {
  if (asset.kind === 'workflow' && asset.workflow) return { section: 'workflows', id: asset.workflow };
  if (asset.kind === 'image' && asset.agent) return { section: 'agents', id: asset.agent };
  return undefined;
}

/** One pass over the lock (not one per asset: 10,000 changed assets made planning quadratic, 80 s). */
export function lastCharges(lock: Lock): LastCharges {
  const last = new Map<string, { at: string; credits: number }>();
  for (const entry of Object.values(lock.assets)) {
    // An asset with takes records their sum: one call's price is a take's own charge.
    // Every paid call costs something (service-api §1): a 0 (written by an older assetgen for a
    // replay that did not restate its charge) is not a price.
    const charged = (credits: number | null | undefined): credits is number => typeof credits === 'number' && credits > 0;
    const credits = entry.candidates ? entry.candidates.findLast((take) => charged(take.credits))?.credits : entry.credits;
    if (!charged(credits) || !entry.finishedAt) continue;
    const key = chargeKey(entry);
    const seen = last.get(key);
    if (!seen || entry.finishedAt > seen.at) last.set(key, { at: entry.finishedAt, credits });
  }
  return new Map([...last].map(([key, { credits }]) => [key, credits]));
}

const own = (list: Record<string, number> | undefined, id: string): number | undefined =>
  list && Object.hasOwn(list, id) ? list[id] : undefined;

/** What one call of `asset` costs and where that comes from: observed, then learned, then declared; null when none says. */
export function priceFor(asset: Priced, index: PriceIndex): Price | null {
  const observed = index.observed.get(chargeKey(asset));
  // A video: its published 180 plus the polls it took when made with an API key, as the lock
  // records the whole cost of the last one made (of the same agent); never below the published price.
  if (asset.kind === 'video')
    return observed !== undefined && observed >= VIDEO_JOB_COST
      ? { credits: observed, source: 'observed' }
      : { credits: VIDEO_JOB_COST, source: 'published' };
  if (observed !== undefined) return { credits: observed, source: 'observed' };
  const name = priceName(asset);
  if (!name) return null;
  const learned = own(index.learned?.[name.section], name.id);
  if (learned !== undefined) return { credits: learned, source: 'learned' };
  const declared = own(index.declared?.[name.section], name.id);
  return declared === undefined ? null : { credits: declared, source: 'declared' };
}

/**
 * What generating `asset` should cost: a video job's last whole cost in the lock, else its
 * published price; otherwise the last charge the lock records for the same agent (images) or
 * workflow, then a learned or declared price (with a PriceIndex); null when nothing says.
 */
export function estimateFor(asset: Priced, prices: Lock | LastCharges | PriceIndex): number | null {
  const index: PriceIndex =
    prices instanceof Map ? { observed: prices as LastCharges } : 'observed' in prices ? prices : { observed: lastCharges(prices as Lock) };
  return priceFor(asset, index)?.credits ?? null;
}

/** How people read a price's source, after the figure: `10 (declared in assetgen.yaml)`. */
export const PRICE_SOURCE_WORDS: Record<PriceSource, string> = {
  observed: 'observed in assetgen.lock',
  learned: 'learned on this machine',
  declared: 'declared in assetgen.yaml',
  published: "the service's published price",
};
