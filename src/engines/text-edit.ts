// Edits of a user's text file that keep every other byte: a list of splices (replace the
// characters [start, end) of the original with `text`) is both the new file and the diff shown
// before it is written, so what is shown is exactly what is written. Pure.

export interface Splice {
  /** Offsets into the original text; `start === end` inserts. */
  start: number;
  end: number;
  text: string;
}

/** The original with the splices applied (they must not overlap). */
export function applySplices(original: string, splices: readonly Splice[]): string {
  let result = '';
  let at = 0;
  for (const splice of sortedSplices(splices)) {
    result += original.slice(at, splice.start) + splice.text;
    at = splice.end;
  }
  return result + original.slice(at);
}

function sortedSplices(splices: readonly Splice[]): Splice[] {
  const sorted = [...splices].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let index = 1; index < sorted.length; index++)
    if (sorted[index].start < sorted[index - 1].end) throw new Error('overlapping splices');
  return sorted;
}

/** The file's line ending: CRLF when its first line ends so, else LF (a new file gets LF). */
export const lineEnding = (text: string): '\r\n' | '\n' => (/^[^\n]*\r\n/.test(text) ? '\r\n' : '\n');

/** The lines of a text with their offsets; `end` excludes the line break. */
export interface Line {
  start: number;
  end: number;
  /** Where the next line starts (after the break; the text's length for the last line). */
  next: number;
  text: string;
}

export function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const next = newline === -1 ? text.length : newline + 1;
    const end = newline === -1 ? text.length : newline > start && text[newline - 1] === '\r' ? newline - 1 : newline;
    lines.push({ start, end, next, text: text.slice(start, end) });
    start = next;
  }
  return lines;
}

/**
 * Lines to add at the end of a text: after a line break (one is added when the text lacks a final
 * one), in the text's own line ending.
 */
export function appendLines(text: string, lines: readonly string[]): Splice {
  const eol = lineEnding(text);
  const lead = text.length && !text.endsWith('\n') ? eol : '';
  return { start: text.length, end: text.length, text: lead + lines.map((line) => line + eol).join('') };
}

/**
 * A unified diff of the splices, for people: `@@ -a,b +c,d @@` hunks of the lines they touch, with
 * `context` unchanged lines around each (hunks that meet are joined). A new file is all `+`.
 */
export function renderDiff(original: string | null, splices: readonly Splice[], context = 2): string[] {
  if (original === null || original === '') return linesOf(applySplices(original ?? '', splices)).map((line) => `+${line.text}`);
  const before = linesOf(original);
  const lineAt = (offset: number): number => {
    const index = before.findIndex((line) => offset < line.next);
    return index === -1 ? before.length : index;
  };
  // Each splice as the range of whole original lines it touches (an insertion at the very end: the last line).
  const ranges = sortedSplices(splices).map((splice) => {
    const first = Math.min(lineAt(splice.start), before.length - 1);
    return { first, last: Math.max(first, Math.min(lineAt(Math.max(splice.start, splice.end - 1)), before.length - 1)), splices: [splice] };
  });
  const hunks: { first: number; last: number; splices: Splice[] }[] = [];
  for (const range of ranges) {
    const previous = hunks.at(-1);
    if (previous && range.first - previous.last <= 2 * context + 1) {
      previous.last = Math.max(previous.last, range.last);
      previous.splices.push(...range.splices);
    } else hunks.push({ ...range });
  }
  const output: string[] = [];
  let shift = 0; // lines added minus removed by earlier hunks
  for (const hunk of hunks) {
    const from = Math.max(0, hunk.first - context);
    const to = Math.min(before.length - 1, hunk.last + context);
    const startOffset = before[from]?.start ?? 0;
    const endOffset = before[to]?.next ?? original.length;
    // The region's text before and after, as lines.
    const region = original.slice(startOffset, endOffset);
    const local = hunk.splices.map((splice) => ({ ...splice, start: splice.start - startOffset, end: splice.end - startOffset }));
    const oldLines = linesOf(region).map((line) => line.text);
    const newLines = linesOf(applySplices(region, local)).map((line) => line.text);
    // Context is what both share at either end; the rest is removed and added.
    let head = 0;
    while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head++;
    let tail = 0;
    while (
      tail < oldLines.length - head &&
      tail < newLines.length - head &&
      oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
    )
      tail++;
    if (head === oldLines.length && head === newLines.length) continue; // the splices change nothing
    // At most `context` shared lines either side.
    const skip = Math.max(0, head - context);
    const keepTail = Math.min(tail, context);
    const removed = oldLines.slice(head, oldLines.length - tail);
    const added = newLines.slice(head, newLines.length - tail);
    const shownOld = head - skip + removed.length + keepTail;
    const shownNew = head - skip + added.length + keepTail;
    output.push(`@@ -${from + skip + 1},${shownOld} +${from + skip + 1 + shift},${shownNew} @@`);
    output.push(...oldLines.slice(skip, head).map((line) => ` ${line}`));
    output.push(...removed.map((line) => `-${line}`));
    output.push(...added.map((line) => `+${line}`));
    output.push(...oldLines.slice(oldLines.length - tail, oldLines.length - tail + keepTail).map((line) => ` ${line}`));
    shift += newLines.length - oldLines.length;
  }
  return output;
}
