// Godot 4's project defaults for pixel art, in `project.godot`: the default canvas texture filter
// Nearest (Godot 4 filters when drawing, not when importing), and the texture importer's defaults
// for every image imported from now on — lossless, no mipmaps, and no switch to VRAM compression
// when a texture is used in 3D (which would not be lossless). Only those keys change; every other
// byte of the file (comments, other sections, the order) stays. Godot itself keeps the per-file
// `.import` files: assetgen never writes one.
import { findEntry, scanIni, setIniValues, type IniStyle } from './ini.js';
import { lineEnding, type Splice } from './text-edit.js';
import { EngineSetupError } from './errors.js';

export const GODOT_FILE = 'project.godot';

const GODOT_STYLE: IniStyle = { assign: '=', blankAfterHeader: true, multiline: true };

/** `[rendering]`: Nearest (0; 1 is Linear, Godot's default) for every CanvasItem that does not say otherwise. */
export const GODOT_RENDERING: [string, string][] = [['textures/canvas_textures/default_texture_filter', '0']];

/** `[importer_defaults] texture={…}`: what the editor's Import Defaults for Texture2D say. */
export const GODOT_TEXTURE_IMPORT: [string, string][] = [
  ['compress/mode', '0'], // Lossless
  ['mipmaps/generate', 'false'],
  ['detect_3d/compress_to', '0'], // Disabled: used in 3D, it stays lossless
];

/** The splices that set the keys in `project.godot`'s text; refused for a file that is not Godot 4's. */
export function godotSplices(text: string): Splice[] {
  const sections = scanIni(text, GODOT_STYLE);
  const version = Number(findEntry(sections, null, 'config_version')?.value);
  if (!Number.isInteger(version))
    throw new EngineSetupError(
      `${GODOT_FILE} has no config_version: it is not a Godot project file.`,
      'Run this in the folder of your Godot project (where project.godot is), or point -f at a manifest there.',
    );
  if (version < 5)
    throw new EngineSetupError(
      `${GODOT_FILE} is a Godot 3 project (config_version=${version}); assetgen writes Godot 4's settings.`,
      'Open and convert the project in Godot 4 first, or set the import defaults in Godot 3 by hand (docs/engines/godot.md).',
    );
  const texture = findEntry(sections, 'importer_defaults', 'texture');
  const rendering = setIniValues(text, 'rendering', GODOT_RENDERING, GODOT_STYLE);
  if (texture) return [...rendering, ...dictionarySplices(text, texture.valueStart, texture.valueEnd, GODOT_TEXTURE_IMPORT)];
  // The importer's section is placed in the file as the rendering key leaves it: both may go at its
  // end, and the second must follow the first (one blank line between sections, not two).
  const atEnd = rendering.filter((splice) => splice.start === text.length);
  const extended = text + atEnd.map((splice) => splice.text).join('');
  const importer = setIniValues(
    extended,
    'importer_defaults',
    [['texture', dictionary(GODOT_TEXTURE_IMPORT, lineEnding(text))]],
    GODOT_STYLE,
  );
  const appended = importer.filter((splice) => splice.start >= text.length).map((splice) => splice.text);
  return [
    ...rendering.filter((splice) => splice.start < text.length),
    ...importer.filter((splice) => splice.start < text.length),
    ...(atEnd.length || appended.length
      ? [{ start: text.length, end: text.length, text: [...atEnd.map((splice) => splice.text), ...appended].join('') }]
      : []),
  ];
}

/** A Godot dictionary as the editor writes one: `{`, one `"key": value` a line, `}`. */
function dictionary(values: readonly [string, string][], eol: string): string {
  return `{${eol}${values.map(([key, value]) => `${JSON.stringify(key)}: ${value}`).join(`,${eol}`)}${eol}}`;
}

interface DictionaryEntry {
  key: string;
  valueStart: number;
  valueEnd: number;
}

/**
 * Sets keys inside an existing dictionary value (text[start, end) is `{…}`): a value that differs is
 * replaced where it is, a missing key is added after the last entry, in the editor's one-a-line form.
 */
function dictionarySplices(text: string, start: number, end: number, values: readonly [string, string][]): Splice[] {
  const entries = dictionaryEntries(text, start, end);
  if (!entries)
    throw new EngineSetupError(
      `${GODOT_FILE}: [importer_defaults] texture= is not a dictionary as Godot writes one.`,
      'Open Project Settings → Import Defaults → Texture2D in the editor and press Reset, then run this again.',
    );
  const eol = lineEnding(text);
  const splices: Splice[] = [];
  const missing: [string, string][] = [];
  for (const [key, value] of values) {
    const entry = entries.findLast((candidate) => candidate.key === key);
    if (!entry) missing.push([key, value]);
    else if (text.slice(entry.valueStart, entry.valueEnd) !== value)
      splices.push({ start: entry.valueStart, end: entry.valueEnd, text: value });
  }
  if (!missing.length) return splices;
  const added = missing.map(([key, value]) => `${JSON.stringify(key)}: ${value}`);
  const last = entries.at(-1);
  if (last) splices.push({ start: last.valueEnd, end: last.valueEnd, text: added.map((line) => `,${eol}${line}`).join('') });
  else splices.push({ start, end, text: dictionary(missing, eol) });
  return splices;
}

/**
 * The entries of the dictionary text[start, end): each `"key": value` (or `&"key"`), split at the
 * commas outside strings and brackets. Undefined when it is not `{…}` with string keys.
 */
function dictionaryEntries(text: string, start: number, end: number): DictionaryEntry[] | undefined {
  if (text[start] !== '{' || text[end - 1] !== '}') return undefined;
  const entries: DictionaryEntry[] = [];
  let partStart = start + 1;
  let depth = 0;
  let inString = false;
  for (let at = start + 1; at <= end - 1; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && at < end - 1) depth--;
    else if ((char === ',' && depth === 0) || at === end - 1) {
      const part = text.slice(partStart, at);
      if (part.trim()) {
        const entry = dictionaryEntry(text, partStart, at);
        if (!entry) return undefined;
        entries.push(entry);
      }
      partStart = at + 1;
    }
  }
  return entries;
}

const ENTRY = /^\s*&?("(?:[^"\\]|\\.)*")\s*:\s*/;

function dictionaryEntry(text: string, start: number, end: number): DictionaryEntry | undefined {
  const part = text.slice(start, end);
  const head = ENTRY.exec(part);
  if (!head) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(head[1]);
  } catch {
    return undefined;
  }
  let valueEnd = end;
  while (valueEnd > start && /\s/.test(text[valueEnd - 1])) valueEnd--;
  const valueStart = start + head[0].length;
  return typeof key === 'string' && valueEnd > valueStart ? { key, valueStart, valueEnd } : undefined;
}
