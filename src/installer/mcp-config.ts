// The text of an agent's MCP configuration with the assetgen server added or removed, leaving every
// other byte as it was: JSON (with comments, where the agent allows them) is edited in place with
// jsonc-parser's modify/applyEdits; TOML gets one table appended, checked with a real parser
// (smol-toml), and loses exactly that text again — only while cutting it out changes nothing else
// the file means (checked by parsing both). Pure functions: no disk.
import { applyEdits, findNodeAtLocation, modify, parse, parseTree, type ParseError } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import type { McpFormat } from './agents.js';

export const SERVER_NAME = 'assetgen';

/** What the client spawns: the program and its arguments (render.ts mcpLaunch decides them). */
export interface McpLaunch {
  command: string;
  args: string[];
}

type JsonFormat = Exclude<McpFormat, 'codexToml'>;

const PARENT: Record<JsonFormat, string> = {
  mcpServers: 'mcpServers',
  mcpServersStdio: 'mcpServers',
  vscodeServers: 'servers',
  opencode: 'mcp',
};

/** The entry as the format spells it: the command only, never a key or other secret. */
export function entryValue(format: JsonFormat, { command, args }: McpLaunch): Record<string, unknown> {
  switch (format) {
    case 'mcpServers':
      return { command, args };
    case 'mcpServersStdio':
    case 'vscodeServers':
      return { type: 'stdio', command, args };
    case 'opencode':
      return { type: 'local', command: [command, ...args], enabled: true };
  }
}

/** The Codex table; JSON's string escapes are TOML's basic strings' (a Windows path's backslashes). */
const tomlTable = ({ command, args }: McpLaunch): string =>
  `[mcp_servers.${SERVER_NAME}]\ncommand = ${JSON.stringify(command)}\nargs = [${args.map((arg) => JSON.stringify(arg)).join(', ')}]\n`;

/** What adding gives: the new text, and the one contiguous chunk inserted (removing it gives the old text back). */
export type AddResult =
  | { status: 'add'; text: string; value: string; inserted: string; createdParent: boolean }
  | { status: 'unchanged'; value: string }
  | { status: 'conflict'; reason: string };

export type RemoveResult = { status: 'remove'; text: string | null } | { status: 'missing' } | { status: 'edited' };

/** What the manifest keeps of an entry we wrote. */
export interface WrittenEntry {
  format: McpFormat;
  /** The entry as JSON (TOML: the table), to tell whether it was edited since. */
  value: string;
  /** The exact text inserted into the file. */
  inserted: string;
  createdParent: boolean;
  createdFile: boolean;
}

export function addServer(existing: string | null, format: McpFormat, launch: McpLaunch, force = false): AddResult {
  return format === 'codexToml' ? addToml(existing, launch) : addJson(existing, format, launch, force);
}

export function removeServer(text: string, entry: WrittenEntry, force = false): RemoveResult {
  return entry.format === 'codexToml' ? removeToml(text, entry) : removeJson(text, entry, force);
}

function parseJson(text: string, allowTrailingComma = true): { value: unknown; errors: ParseError[] } {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma, disallowComments: false });
  return { value, errors };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The same parsed document, key order aside (a TOML date compared by its text). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.toISOString() === b.toISOString();
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
  }
  return Object.is(a, b);
}

/**
 * True when `after` is `before` less our entry and nothing else: no key of the user's lost, or
 * moved into another server's entry or table. The servers object may go too when ours was all it held.
 */
function onlyOurEntryGone(before: unknown, after: unknown, parent: string): boolean {
  if (!isObject(before) || !isObject(after) || !isObject(before[parent])) return false;
  const others = Object.fromEntries(Object.entries(before[parent]).filter(([key]) => key !== SERVER_NAME));
  const expected: Record<string, unknown> = { ...before, [parent]: others };
  if (Object.keys(others).length === 0 && !Object.hasOwn(after, parent)) delete expected[parent];
  return sameValue(expected, after);
}

const eolOf = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

/** The whitespace a line starts with, for the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? '';
}

/** `value` pretty-printed to sit at `indent`, one level being `unit`. */
function pretty(value: unknown, indent: string, unit: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(`${eol}${indent}`);
}

function addJson(existing: string | null, format: JsonFormat, launch: McpLaunch, force: boolean): AddResult {
  const value = entryValue(format, launch);
  const canonical = JSON.stringify(value);
  const parent = PARENT[format];
  if (existing === null || existing.trim() === '') {
    const text = `${JSON.stringify({ [parent]: { [SERVER_NAME]: value } }, null, 2)}\n`;
    return { status: 'add', text, value: canonical, inserted: text, createdParent: true };
  }
  const { value: root, errors } = parseJson(existing);
  const tree = parseTree(existing, [], { allowTrailingComma: true });
  if (errors.length || !isObject(root) || !tree) return { status: 'conflict', reason: 'it is not a JSON object assetgen can read' };
  const servers = root[parent];
  if (servers !== undefined && !isObject(servers)) return { status: 'conflict', reason: `its "${parent}" is not an object` };
  const current = servers?.[SERVER_NAME];
  if (current !== undefined) {
    if (JSON.stringify(current) === canonical) return { status: 'unchanged', value: canonical };
    if (!force)
      return { status: 'conflict', reason: `it already has an "${SERVER_NAME}" entry assetgen did not write (--force replaces it)` };
    // --force: replace someone else's entry in place (jsonc-parser); nothing to give back later.
    const edits = modify(existing, [parent, SERVER_NAME], value, {
      formattingOptions: { insertSpaces: true, tabSize: 2, eol: eolOf(existing) },
    });
    return { status: 'add', text: applyEdits(existing, edits), value: canonical, inserted: '', createdParent: false };
  }
  const eol = eolOf(existing);
  const unit = /\n([ \t]+)\S/.exec(existing)?.[1] ?? '  ';
  const object = servers === undefined ? tree : findNodeAtLocation(tree, [parent]);
  if (!object || object.type !== 'object') return { status: 'conflict', reason: 'assetgen cannot find where to add its entry' };
  const entry = servers === undefined ? { [parent]: { [SERVER_NAME]: value } } : { [SERVER_NAME]: value };
  const [key, inner] = Object.entries(entry)[0];
  const last = object.children?.at(-1);
  let at: number;
  let inserted: string;
  if (last) {
    // After the last member, at its indentation: `,\n  "key": …` — one chunk, every other byte kept.
    const indent = indentAt(existing, last.offset);
    at = last.offset + last.length;
    inserted = `,${eol}${indent}${JSON.stringify(key)}: ${pretty(inner, indent, unit, eol)}`;
  } else {
    // An empty object: inside its braces.
    const outer = object.parent ? indentAt(existing, object.parent.offset) : '';
    const indent = outer + unit;
    at = object.offset + 1;
    inserted = `${eol}${indent}${JSON.stringify(key)}: ${pretty(inner, indent, unit, eol)}${eol}${outer}`;
  }
  const text = existing.slice(0, at) + inserted + existing.slice(at);
  if (JSON.stringify((parseJson(text).value as Record<string, Record<string, unknown>>)[parent]?.[SERVER_NAME]) !== canonical) {
    return { status: 'conflict', reason: 'adding the entry would not give valid JSON' };
  }
  return { status: 'add', text, value: canonical, inserted, createdParent: servers === undefined };
}

function removeJson(text: string, entry: WrittenEntry, force: boolean): RemoveResult {
  const parent = PARENT[entry.format as JsonFormat];
  const { value: root, errors } = parseJson(text);
  if (errors.length || !isObject(root)) return { status: 'edited' };
  const servers = root[parent];
  if (!isObject(servers) || servers[SERVER_NAME] === undefined) return { status: 'missing' };
  if (JSON.stringify(servers[SERVER_NAME]) !== entry.value && !force) return { status: 'edited' };
  if (entry.createdFile && text === entry.inserted) return { status: 'remove', text: null };
  // The chunk we inserted, cut out again: the file is as it was before, byte for byte — when the
  // cut takes our entry and nothing else. A member added beside ours since can make the cut leave a
  // dangling comma (`"theirs": {…},}`: no longer JSON for a client that reads strict JSON).
  const at = entry.inserted ? text.lastIndexOf(entry.inserted) : -1;
  if (at >= 0) {
    const next = text.slice(0, at) + text.slice(at + entry.inserted.length);
    const rest = parseJson(next);
    const strictBefore = parseJson(text, false).errors.length === 0;
    const strictAfter = parseJson(next, false).errors.length === 0;
    if (!rest.errors.length && (strictAfter || !strictBefore) && onlyOurEntryGone(root, rest.value, parent)) {
      return { status: 'remove', text: next };
    }
  }
  // Moved, reformatted or joined since: remove the member itself (and the parent we added, if now empty).
  const dropParent = entry.createdParent && Object.keys(servers).length === 1;
  const edits = modify(text, dropParent ? [parent] : [parent, SERVER_NAME], undefined, {});
  return { status: 'remove', text: applyEdits(text, edits) };
}

function tomlEntry(text: string): unknown {
  const root = parseToml(text) as Record<string, unknown>;
  const servers = root.mcp_servers;
  return isObject(servers) ? servers[SERVER_NAME] : undefined;
}

function addToml(existing: string | null, launch: McpLaunch): AddResult {
  const text = existing ?? '';
  const table = tomlTable(launch);
  let current: unknown;
  try {
    current = tomlEntry(text);
  } catch (error) {
    return { status: 'conflict', reason: `it is not valid TOML (${(error as Error).message.split('\n')[0]})` };
  }
  if (current !== undefined) {
    const same = isObject(current) && current.command === launch.command && JSON.stringify(current.args) === JSON.stringify(launch.args);
    return same
      ? { status: 'unchanged', value: table }
      : { status: 'conflict', reason: `it already has an [mcp_servers.${SERVER_NAME}] table assetgen did not write` };
  }
  // A table appended at the end: every byte before it stays as it was.
  const separator = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  const inserted = `${separator}${table}`;
  const next = text + inserted;
  if (JSON.stringify(tomlEntry(next)) !== JSON.stringify({ command: launch.command, args: launch.args })) {
    return {
      status: 'conflict',
      reason: 'appending a table would not give the entry assetgen means (an open array of tables at the end?)',
    };
  }
  return { status: 'add', text: next, value: table, inserted, createdParent: true };
}

/**
 * Our table goes only while it holds exactly what we wrote. TOML gives a table every key line up to
 * the next header, and every `[mcp_servers.assetgen.…]` table wherever it stands: a key the user
 * added under ours (`startup_timeout_sec = 30` appended after it, an `[mcp_servers.assetgen.env]`)
 * makes the entry theirs too, and cutting our lines out would hand those keys to the table before
 * ours (another server's). Such an entry, one edited in place, or a file that does not parse, is
 * edited: it stays (even with --force), as a JSON entry someone changed does.
 */
function removeToml(text: string, entry: WrittenEntry): RemoveResult {
  let before: Record<string, unknown>;
  let written: unknown;
  try {
    before = parseToml(text);
    written = tomlEntry(entry.value);
  } catch {
    return { status: 'edited' };
  }
  const current = isObject(before.mcp_servers) ? before.mcp_servers[SERVER_NAME] : undefined;
  if (current === undefined) return { status: 'missing' };
  if (written === undefined || !sameValue(current, written)) return { status: 'edited' };
  const at = text.lastIndexOf(entry.inserted);
  // Moved or reformatted since: assetgen no longer knows which bytes are its own.
  if (!entry.inserted || at < 0) return { status: 'edited' };
  const next = text.slice(0, at) + text.slice(at + entry.inserted.length);
  let after: unknown;
  try {
    after = parseToml(next);
  } catch {
    return { status: 'edited' };
  }
  if (!onlyOurEntryGone(before, after, 'mcp_servers')) return { status: 'edited' };
  return { status: 'remove', text: entry.createdFile && next.trim() === '' ? null : next };
}
