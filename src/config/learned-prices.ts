// Prices this machine has seen, per service: what one paid call of each agent (an image, a take) or
// workflow (a run's submission) was charged, in any project, kept in the state dir as prices.json.
// A build's estimates and cap use them, marked `learned`, when the project's lock has no charge of
// its own for that agent or workflow (docs/build.md, "Credits"). Written when a build learns a
// price it did not know (or a different one), and by rememberPrices for prices seen elsewhere (a
// remote cache's entries). A cache of facts, never worth failing a build for: an unreadable file
// reads as empty, a failed write is dropped. Two processes writing at once: the last one wins, and
// each keeps what it read, so at worst one new price is learned again by a later build.
import fs from 'node:fs';
import path from 'node:path';
import { SAFE_ID } from '../api/endpoints.js';
import { readRegularFileSync, writeFileInsideSync } from '../files/confine.js';
import { stateDir, type Env } from './paths.js';

/** Credits per paid call by agent and by workflow: the manifest's `prices` shape. */
export interface PriceList {
  agents: Record<string, number>;
  workflows: Record<string, number>;
}

/** What a caller may pass: either section, or both. */
export type ObservedPrices = Partial<PriceList>;

const FILE = 'prices.json';
/** Bounds: the store stays small whatever a service charged or a cache entry claimed. */
const MAX_SERVICES = 32;
const MAX_PER_SECTION = 500;
const MAX_SERVICE_LENGTH = 300;
/** A charge above this is not a price anyone pays per call: taken as garbage, never remembered. */
export const MAX_PRICE = 1_000_000;
const SECTIONS = ['agents', 'workflows'] as const;

interface StoredService {
  /** When a price of this service was last remembered (ISO 8601): the oldest services go first. */
  seenAt: string;
  agents: Record<string, number>;
  workflows: Record<string, number>;
}

export const learnedPricesPath = (env: Env = process.env): string => path.join(stateDir(env), FILE);

const emptyList = (): PriceList => ({
  agents: Object.create(null) as Record<string, number>,
  workflows: Object.create(null) as Record<string, number>,
});

/**
 * A whole number of credits above 0: every call that generates something is charged (service-api.md
 * §1), so a 0 is never a price — it was taken from a replay that did not restate its original charge
 * (an older assetgen stored it so): never stored, and dropped from a store that holds it.
 */
const isPrice = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= MAX_PRICE;

/** One section as found in the file: safe ids and whole prices only, at most MAX_PER_SECTION. */
function cleanSection(value: unknown): Record<string, number> {
  const clean = Object.create(null) as Record<string, number>;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return clean;
  let kept = 0;
  for (const [id, credits] of Object.entries(value as Record<string, unknown>)) {
    if (kept >= MAX_PER_SECTION) break;
    if (SAFE_ID.test(id) && isPrice(credits)) {
      clean[id] = credits;
      kept++;
    }
  }
  return clean;
}

/** Every service's prices as the file holds them (cleaned); empty when there is no file or it is not ours. */
function readAll(env: Env): Map<string, StoredService> {
  const services = new Map<string, StoredService>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readRegularFileSync(learnedPricesPath(env), undefined, 'utf8'));
  } catch {
    return services;
  }
  const stored = (parsed as { services?: unknown } | null)?.services;
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return services;
  for (const [service, value] of Object.entries(stored as Record<string, unknown>).slice(0, MAX_SERVICES)) {
    if (!service || service.length > MAX_SERVICE_LENGTH || !value || typeof value !== 'object') continue;
    const entry = value as Partial<Record<keyof StoredService, unknown>>;
    services.set(service, {
      seenAt: typeof entry.seenAt === 'string' ? entry.seenAt.slice(0, 40) : '',
      agents: cleanSection(entry.agents),
      workflows: cleanSection(entry.workflows),
    });
  }
  return services;
}

/** The prices this machine has learned for `service` (the spec's service id: host and path, or `mock`). */
export function learnedPrices(service: string, env: Env = process.env): PriceList {
  const entry = service ? readAll(env).get(service) : undefined;
  const list = emptyList();
  if (entry) for (const section of SECTIONS) Object.assign(list[section], entry[section]);
  return list;
}

/**
 * Remembers prices observed for `service` (the spec's service id, pipeline/hash.ts serviceId: the
 * lock's `service`, host and path, or `mock`) — by a build's paid calls, or carried by a remote
 * cache's entries from other machines: each replaces what was remembered for that agent or
 * workflow. Ids that are not safe and prices that are not whole credits are left out. Returns
 * whether the file was written (false: nothing new, or it could not be).
 */
export function rememberPrices(service: string, observed: ObservedPrices, env: Env = process.env, now = new Date()): boolean {
  if (!service || service.length > MAX_SERVICE_LENGTH) return false;
  try {
    const services = readAll(env);
    const entry = services.get(service) ?? { seenAt: '', ...emptyList() };
    let changed = false;
    for (const section of SECTIONS) {
      const fresh = Object.entries(observed[section] ?? {}).filter(
        ([id, credits]) => SAFE_ID.test(id) && isPrice(credits) && entry[section][id] !== credits,
      );
      if (fresh.length) {
        // The newest price first (the last one observed leads), then those kept from before, so that
        // trimming to the bound drops the oldest. Made in one pass: a remote cache brings hundreds at once.
        const merged = Object.create(null) as Record<string, number>;
        for (const [id, credits] of fresh.reverse()) merged[id] = credits;
        for (const [id, credits] of Object.entries(entry[section])) if (!(id in merged)) merged[id] = credits;
        entry[section] = merged;
        changed = true;
      }
      entry[section] = cleanSection(entry[section]);
    }
    if (!changed) return false;
    entry.seenAt = now.toISOString();
    services.delete(service);
    const kept = [...services].sort(([, a], [, b]) => b.seenAt.localeCompare(a.seenAt)).slice(0, MAX_SERVICES - 1);
    const document = { services: Object.fromEntries([[service, entry], ...kept]) };
    const dir = stateDir(env);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Through the confinement rule: whole or not at all, never through a link put where the file goes.
    writeFileInsideSync(dir, FILE, `${JSON.stringify(document, null, 2)}\n`, learnedPricesPath(env), { mode: 0o600 });
    return true;
  } catch {
    // Only a cache: the build's own result stands, and a later build learns the price again.
    return false;
  }
}
