// `assetgen install --mcp`: the assetgen MCP server added to each selected agent's MCP
// configuration (plan → apply, like the skill files), recorded in the manifest; uninstall removes
// exactly those entries. The entry is the command only: the API key is never written there.
import fs from 'node:fs';
import path from 'node:path';
import { joinInside, userPath, userRoot, type AgentRecord, type Env, type McpFormat, type Scope } from './agents.js';
import { writeFileAtomicSync } from '../files/atomic.js';
import { assertNoLinks, missingDirs } from './files.js';
import { readManifest, writeManifest, type Manifest, type ManifestMcpEntry } from './manifest.js';
import { addServer, removeServer } from './mcp-config.js';
import { mcpLaunch, resolveInvocation } from './render.js';
import { readRegularFileSync } from '../files/confine.js';

/** add: the entry goes in;  unchanged: it is there already;  conflict: the file stops us;  unsupported: no file for this scope. */
export type McpAction = 'add' | 'unchanged' | 'conflict' | 'unsupported';

export interface McpPlanItem {
  agents: AgentRecord[];
  scope: Scope;
  action: McpAction;
  /** The configuration file (null when unsupported). */
  path: string | null;
  format?: McpFormat;
  projectDir?: string;
  reason?: string;
  /** For add: the whole new text, and what the manifest records. */
  text?: string;
  value?: string;
  inserted?: string;
  createdParent?: boolean;
  createdFile?: boolean;
}

function readText(file: string): string | null {
  try {
    return readRegularFileSync(file, file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** One item per configuration file (agents sharing a file share its entry). */
export function planMcp(agents: AgentRecord[], scope: Scope, projectDir: string, env: Env, force: boolean): McpPlanItem[] {
  const launch = mcpLaunch(resolveInvocation(env));
  const byFile = new Map<string, McpPlanItem>();
  const items: McpPlanItem[] = [];
  for (const agent of agents) {
    const place = agent.mcp;
    const relative = scope === 'project' ? place?.project : undefined;
    const user = scope === 'user' ? place?.user : undefined;
    if (!place || (!relative && !user)) {
      items.push({ agents: [agent], scope, action: 'unsupported', path: null, reason: unsupportedReason(agent, scope) });
      continue;
    }
    const base = relative ? path.resolve(projectDir) : userRoot(user!.root, env);
    const file = relative ? joinInside(base, relative) : userPath(user!, env);
    const shared = byFile.get(file);
    if (shared) {
      shared.agents.push(agent);
      continue;
    }
    assertNoLinks(base, file);
    const existing = readText(file);
    const result = addServer(existing, place.format, launch, force);
    const item: McpPlanItem = {
      agents: [agent],
      scope,
      path: file,
      format: place.format,
      action: result.status,
      ...(scope === 'project' ? { projectDir: path.resolve(projectDir) } : {}),
      ...(result.status === 'conflict' ? { reason: result.reason } : {}),
      ...(result.status === 'add'
        ? {
            text: result.text,
            value: result.value,
            inserted: result.inserted,
            createdParent: result.createdParent,
            createdFile: existing === null,
          }
        : {}),
    };
    byFile.set(file, item);
    items.push(item);
  }
  return items;
}

function unsupportedReason(agent: AgentRecord, scope: Scope): string {
  if (!agent.mcp) return `${agent.name} keeps MCP servers where the installer does not write: add it by hand (docs/mcp.md).`;
  return `${agent.name} has no ${scope}-scope MCP file the installer writes: use the other scope, or add it by hand (docs/mcp.md).`;
}

export const mcpChanges = (items: McpPlanItem[], manifest: Manifest): boolean =>
  items.some((item) => item.action === 'add' || (item.action === 'unchanged' && !recorded(manifest, item)));

const recorded = (manifest: Manifest, item: McpPlanItem): ManifestMcpEntry | undefined =>
  manifest.mcp?.find((entry) => entry.path === item.path);

/** Writes each added entry (atomically) and records it; an entry already there and ours gains the agents. */
export function applyMcp(items: McpPlanItem[], env: Env, version: string): void {
  const manifest = readManifest(env);
  const entries = manifest.mcp ?? [];
  try {
    for (const item of items) {
      if (!item.path || !item.format || (item.action !== 'add' && item.action !== 'unchanged')) continue;
      const ids = item.agents.map((agent) => agent.id);
      const previous = entries.find((entry) => entry.path === item.path);
      if (item.action === 'unchanged' && previous) {
        previous.agents = [...new Set([...previous.agents, ...ids])];
        continue;
      }
      if (item.action === 'unchanged') continue; // someone else's identical entry: not ours to remove later
      for (const dir of missingDirs(path.dirname(item.path))) {
        fs.mkdirSync(dir);
        if (!manifest.createdDirs.includes(dir)) manifest.createdDirs.push(dir);
      }
      writeKeepingMode(item.path, item.text!);
      const entry: ManifestMcpEntry = {
        path: item.path,
        format: item.format,
        value: item.value!,
        inserted: item.inserted!,
        createdParent: Boolean(item.createdParent),
        createdFile: Boolean(item.createdFile),
        agents: ids,
        scope: item.scope,
        ...(item.projectDir ? { projectDir: item.projectDir } : {}),
        version,
      };
      const index = entries.findIndex((existing) => existing.path === item.path);
      if (index >= 0) entries[index] = entry;
      else entries.push(entry);
    }
  } finally {
    if (entries.length) manifest.mcp = entries;
    writeManifest(env, manifest);
  }
}

/** remove: our entry goes (the file too, if we created it and it holds nothing else);  missing: already gone;  edited: changed since, kept;  detach: other agents keep it. */
export interface McpRemoval {
  entry: ManifestMcpEntry;
  action: 'remove' | 'missing' | 'edited' | 'detach';
  remainingAgents: string[];
  /** The file's new text; null: delete the file. */
  text?: string | null;
}

export function planMcpRemoval(
  manifest: Manifest,
  force: boolean,
  filter: { agentIds?: string[]; scope?: Scope; projectDir?: string } = {},
): McpRemoval[] {
  const agentIds = filter.agentIds ?? [];
  const project = filter.projectDir ? path.resolve(filter.projectDir) : undefined;
  return (manifest.mcp ?? [])
    .filter((entry) => !filter.scope || entry.scope === filter.scope)
    .filter((entry) => !project || (entry.scope === 'project' && entry.projectDir === project))
    .filter((entry) => !agentIds.length || entry.agents.some((id) => agentIds.includes(id)))
    .map((entry): McpRemoval => {
      const remainingAgents = entry.agents.filter((id) => !agentIds.includes(id));
      if (agentIds.length && remainingAgents.length) return { entry, action: 'detach', remainingAgents };
      const text = readText(entry.path);
      if (text === null) return { entry, action: 'missing', remainingAgents: [] };
      const result = removeServer(text, entry, force);
      if (result.status === 'remove') return { entry, action: 'remove', remainingAgents: [], text: result.text };
      return { entry, action: result.status, remainingAgents: [] };
    });
}

export function applyMcpRemoval(removals: McpRemoval[], env: Env): void {
  const manifest = readManifest(env);
  let entries = manifest.mcp ?? [];
  try {
    for (const removal of removals) {
      const file = removal.entry.path;
      if (removal.action === 'detach') {
        entries = entries.map((entry) => (entry.path === file ? { ...entry, agents: removal.remainingAgents } : entry));
        continue;
      }
      if (removal.action === 'edited') continue;
      if (removal.action === 'remove') {
        if (removal.text === null) fs.rmSync(file, { force: true });
        else writeKeepingMode(file, removal.text!);
      }
      entries = entries.filter((entry) => entry.path !== file);
      // Directories we created for the file go too, deepest first, once empty.
      for (const dir of manifest.createdDirs.filter((created) => file.startsWith(created + path.sep)).sort((a, b) => b.length - a.length)) {
        try {
          if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
        } catch {
          // already gone
        }
        if (!fs.existsSync(dir)) manifest.createdDirs = manifest.createdDirs.filter((created) => created !== dir);
      }
    }
  } finally {
    if (entries.length) manifest.mcp = entries;
    else delete manifest.mcp;
    writeManifest(env, manifest);
  }
}

/** Replaces a file atomically, keeping its permissions (a 0600 config stays 0600). */
function writeKeepingMode(file: string, text: string): void {
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode;
  writeFileAtomicSync(file, text);
  if (mode !== undefined) fs.chmodSync(file, mode & 0o7777);
}
