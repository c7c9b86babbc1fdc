// The INI-like project files of Godot (`project.godot`) and Defold (`game.project`), read only as
// far as needed to set a few keys: sections, keys and where each value starts and ends. A Godot
// value may span lines (a dictionary, an array, a string with line breaks), so its extent is found
// by brackets and strings; Defold's are one line each. Every other byte stays as it is (./text-edit.ts).
import { lineEnding, linesOf, type Line, type Splice } from './text-edit.js';

export interface IniEntry {
  key: string;
  /** The value's text and its offsets in the file (without the spaces around it). */
  value: string;
  valueStart: number;
  valueEnd: number;
  /** Where the line after the value starts (or the file's end). */
  next: number;
}

export interface IniSection {
  /** null for the keys before the first header. */
  name: string | null;
  /** Where the line after the header starts (the file's start for the first, nameless one). */
  bodyStart: number;
  entries: IniEntry[];
}

export interface IniStyle {
  /** `=` (Godot) or ` = ` (Defold). */
  assign: string;
  /** Godot leaves a blank line after a section's header; Defold does not. */
  blankAfterHeader: boolean;
  /** Values may span lines by brackets and strings (Godot's Variant syntax). */
  multiline: boolean;
}

const KEY = /^\s*([^\s=;#[][^=]*?)\s*=/;
const HEADER = /^\s*\[([^\]]+)\]\s*$/;

export function scanIni(text: string, style: IniStyle): IniSection[] {
  const sections: IniSection[] = [{ name: null, bodyStart: 0, entries: [] }];
  const lines = linesOf(text);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const header = HEADER.exec(line.text);
    if (header) {
      sections.push({ name: header[1].trim(), bodyStart: line.next, entries: [] });
      continue;
    }
    const key = KEY.exec(line.text);
    if (!key) continue; // blank, a comment, or something this reader does not need
    let valueStart = line.start + key[0].length;
    while (valueStart < line.end && /\s/.test(text[valueStart])) valueStart++;
    let valueEnd = style.multiline ? godotValueEnd(text, valueStart) : line.end;
    // The lines the value spans are its own: skip them.
    while (index + 1 < lines.length && lines[index + 1].start < valueEnd) index++;
    while (valueEnd > valueStart && /\s/.test(text[valueEnd - 1])) valueEnd--;
    sections.at(-1)!.entries.push({
      key: key[1],
      value: text.slice(valueStart, valueEnd),
      valueStart,
      valueEnd,
      next: lines[index].next,
    });
  }
  return sections;
}

/**
 * Where a Godot value that starts at `start` ends: at the first line break outside a string once
 * every bracket it opened is closed. A value left open runs to the file's end.
 */
function godotValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let at = start; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (char === '\n' && depth <= 0) return at;
  }
  return text.length;
}

/** The entry a reader of the file takes for `key` in `section`: the last one (a later line wins). */
export function findEntry(sections: readonly IniSection[], section: string | null, key: string): IniEntry | undefined {
  return sections
    .filter((candidate) => candidate.name === section)
    .flatMap((candidate) => candidate.entries)
    .findLast((entry) => entry.key === key);
}

/**
 * The splices that give `section` each of `values` (key → value text): a value that differs is
 * replaced where it is, a missing key goes after the section's last key (the last section of that
 * name), a missing section at the end of the file. Keys already so are left alone.
 */
export function setIniValues(text: string, section: string, values: readonly [string, string][], style: IniStyle): Splice[] {
  const sections = scanIni(text, style);
  const eol = lineEnding(text);
  const splices: Splice[] = [];
  const missing: string[] = [];
  for (const [key, value] of values) {
    const entry = findEntry(sections, section, key);
    if (!entry) missing.push(`${key}${style.assign}${value}`);
    else if (entry.value !== value) splices.push({ start: entry.valueStart, end: entry.valueEnd, text: value });
  }
  if (!missing.length) return splices;
  const target = sections.findLast((candidate) => candidate.name === section);
  if (!target) {
    // A new section at the end, after a blank line.
    const lead = !text.length ? '' : text.endsWith(`${eol}${eol}`) || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? eol : eol + eol;
    const body = [`[${section}]`, ...(style.blankAfterHeader ? [''] : []), ...missing];
    splices.push({ start: text.length, end: text.length, text: lead + body.map((line) => line + eol).join('') });
    return splices;
  }
  const last = target.entries.at(-1);
  const at = last ? last.next : afterHeader(text, target, style);
  const lead = at === text.length && text.length && !text.endsWith('\n') ? eol : '';
  splices.push({ start: at, end: at, text: lead + missing.map((line) => line + eol).join('') });
  return splices;
}

/** Where the first key of a section without keys goes: after the header (and Godot's blank line). */
function afterHeader(text: string, section: IniSection, style: IniStyle): number {
  if (!style.blankAfterHeader) return section.bodyStart;
  const next: Line | undefined = linesOf(text.slice(section.bodyStart))[0];
  return next && next.text.trim() === '' ? section.bodyStart + next.next : section.bodyStart;
}
