// The last agents list each service gave (GET /api/ai/agents needs a session cookie), kept in the
// config store's folder as agents-cache.json. With only an API key, `assetgen agents` answers
// from it (labelled as a cached list, with its date), and shell completion offers its ids for
// `--agent`. Only what the service listed goes in (ids of the safe form only: completion hands them
// to the shell): nothing here is ever guessed. A cache is never
// worth failing a command for: an unreadable file reads as empty, a failed write is dropped.
import fs from 'node:fs';
import path from 'node:path';
import { SAFE_ID } from '../api/endpoints.js';
import { writeFileAtomicSync } from '../files/atomic.js';
import { configDir, type Env } from './paths.js';
import { readRegularFileSync } from '../files/confine.js';

export interface CachedAgent {
  id: string;
  kind?: string;
  name?: string;
}

export interface CachedAgentList {
  /** When the service listed them (ISO 8601). */
  listedAt: string;
  agents: CachedAgent[];
}

const FILE = 'agents-cache.json';
/** Bounds: a cache stays small whatever a service answers. */
const MAX_SERVICES = 16;
const MAX_AGENTS = 1000;
const MAX_TEXT = 200;

export const agentsCachePath = (env: Env): string => path.join(configDir(env), FILE);

/** One spelling per service: origin and path, no credentials, query or trailing slash. */
function serviceKey(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

function readAll(env: Env): Record<string, CachedAgentList> {
  try {
    const parsed: unknown = JSON.parse(readRegularFileSync(agentsCachePath(env), undefined, 'utf8'));
    const services = (parsed as { services?: unknown } | null)?.services;
    return services && typeof services === 'object' && !Array.isArray(services) ? (services as Record<string, CachedAgentList>) : {};
  } catch {
    return {};
  }
}

const isSafeId = (value: unknown): value is string => typeof value === 'string' && SAFE_ID.test(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value.slice(0, MAX_TEXT) : undefined);

/** The list last cached for this service, or undefined; records that are not agents are left out. */
export function readCachedAgents(env: Env, baseUrl: string): CachedAgentList | undefined {
  const key = serviceKey(baseUrl);
  const entry = key ? readAll(env)[key] : undefined;
  if (!entry || typeof entry.listedAt !== 'string' || !Array.isArray(entry.agents)) return undefined;
  const agents = entry.agents
    .slice(0, MAX_AGENTS)
    .filter((agent): agent is CachedAgent => isSafeId((agent as CachedAgent | null)?.id))
    .map((agent) => ({
      id: agent.id,
      ...(text(agent.kind) ? { kind: text(agent.kind) } : {}),
      ...(text(agent.name) ? { name: text(agent.name) } : {}),
    }));
  return { listedAt: entry.listedAt, agents };
}

/** Replaces this service's cached list (the most recent MAX_SERVICES services are kept). */
export function cacheAgents(env: Env, baseUrl: string, agents: readonly CachedAgent[], now = new Date()): void {
  const key = serviceKey(baseUrl);
  if (!key) return;
  try {
    const services = readAll(env);
    delete services[key];
    const kept = Object.entries(services)
      .sort(([, a], [, b]) => String(b.listedAt).localeCompare(String(a.listedAt)))
      .slice(0, MAX_SERVICES - 1);
    const list: CachedAgentList = {
      listedAt: now.toISOString(),
      agents: agents
        .filter((agent) => isSafeId(agent.id))
        .slice(0, MAX_AGENTS)
        .map((agent) => ({
          id: agent.id,
          ...(agent.kind ? { kind: agent.kind } : {}),
          ...(agent.name ? { name: text(agent.name) } : {}),
        })),
    };
    const file = agentsCachePath(env);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(file, `${JSON.stringify({ services: Object.fromEntries([[key, list], ...kept]) }, null, 2)}\n`, { mode: 0o600 });
  } catch {
    // A cache that cannot be written is only a cache: the command's own result stands.
  }
}
