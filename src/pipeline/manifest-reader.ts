// A fast reader for the plain block YAML that manifests are written in (`key: value` lines, `- `
// lists, simple quoted strings, one-line `{ k: v }` maps): yaml's document model took ~0.4 s of
// the 1 s it took to plan 10,000 assets. It builds the same nodes yaml would (values and start
// offsets), and gives up (undefined) on anything outside that subset: anchors, tags, block
// scalars, multi-line values, escapes, duplicate keys, odd indentation. The caller then reads the
// text with yaml as before, and also whenever the nodes read here fail validation, so every
// error is yaml's own, with the same file:line:col.
import { LineCounter, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml';

export interface PlainDocument {
  contents: Node;
  lines: LineCounter;
  /** Nodes as the manifest's limit counts them (./manifest-limits.ts): keys, values, `:`, `-`, `,`, `{`. */
  nodes: number;
}

/** A character yaml treats specially, or that this reader leaves to it (tabs, lone CRs, BOMs, …). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSUPPORTED_TEXT = /[\x00-\x08\t\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029\ufeff]|\r(?!\n)/;
/** A key this reader accepts: a plain word that yaml reads as a string, followed by `:` and a space or the end. */
const KEY = /^([A-Za-z_$][A-Za-z0-9_$./-]{0,199}):(?: |$)/;
/** Keys and values that look like words but are not strings in YAML 1.2's core schema. */
const NOT_STRINGS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
/** A plain scalar may not start with an indicator (some only before a space; all are left to yaml). */
const INDICATOR_FIRST = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Core-schema numbers this reader resolves itself (exact in a double); other numeric forms go to yaml. */
const SIMPLE_NUMBER = /^(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;
/** What yaml's core schema reads as a number, null or boolean rather than a string. */
const CORE_NOT_STRING =
  /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)?$/;

/** Thrown to leave the subset; caught in readPlainManifest. */
class OutsideSubset extends Error {}
const outside = (): never => {
  throw new OutsideSubset();
};

interface Line {
  indent: number;
  /** The text after the indent (a trailing CR removed). */
  content: string;
  /** Source offset of `content`. */
  offset: number;
}

/** The manifest's nodes when its text is in the subset; undefined when yaml must read it. */
export function readPlainManifest(text: string): PlainDocument | undefined {
  if (UNSUPPORTED_TEXT.test(text)) return undefined;
  const lines = new LineCounter();
  const content: Line[] = [];
  for (let start = 0; start <= text.length; ) {
    lines.addNewLine(start);
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const raw = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    const indent = spacesAt(raw, 0);
    const rest = raw.slice(indent);
    // Blank and comment-only lines carry nothing; document markers and directives are yaml's.
    if (rest && rest[0] !== '#') {
      if (indent === 0 && (rest.startsWith('---') || rest.startsWith('...') || rest[0] === '%')) return undefined;
      content.push({ indent, content: rest, offset: start + indent });
    }
    start = end + 1;
  }
  try {
    const reader = new Reader(content);
    if (!content.length || content[0].indent !== 0) return undefined;
    const [contents, next] = reader.map(content[0], 0, 1);
    if (next !== content.length) return undefined;
    return { contents, lines, nodes: reader.nodes };
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}

class Reader {
  nodes = 0;

  constructor(readonly lines: Line[]) {}

  /** A block mapping whose first pair is `first` (its own line, or the rest of a `- ` line) at column `indent`. */
  map(first: Line, indent: number, next: number): [YAMLMap, number] {
    const map = node(MAP, { items: [], range: [first.offset, first.offset, first.offset] });
    const keys = new Set<string>();
    let line: Line | undefined = first;
    while (line) {
      const match = KEY.exec(line.content) ?? outside();
      const name = match[1];
      if (NOT_STRINGS.has(name) || keys.has(name)) outside();
      keys.add(name);
      const key = this.scalar(name, line.offset);
      this.nodes += 2;
      const at = match[0].length + spacesAt(line.content, match[0].length);
      const rest = line.content.slice(at);
      let value: Node;
      if (rest && rest[0] !== '#') value = this.inline(rest, line.offset + at, false);
      else {
        // The value is the block below: deeper lines, or a list at the same column.
        const below = this.lines[next] ?? outside();
        if (below.indent > indent) [value, next] = this.block(below, next + 1);
        else if (below.indent === indent && isItem(below.content)) [value, next] = this.seq(below, indent, next + 1);
        else return outside();
      }
      map.items.push(node(PAIR, { key, value }));
      const after = this.lines[next];
      if (after && after.indent > indent) outside();
      line = after?.indent === indent && !isItem(after.content) ? after : undefined;
      if (line) next++;
    }
    return [map, next];
  }

  /** A block collection starting at `line`. */
  block(line: Line, next: number): [Node, number] {
    return isItem(line.content) ? this.seq(line, line.indent, next) : this.map(line, line.indent, next);
  }

  /** A block sequence of `- ` items at column `indent`. */
  seq(first: Line, indent: number, next: number): [YAMLSeq, number] {
    const seq = node(SEQ, { items: [], range: [first.offset, first.offset, first.offset] });
    let line: Line | undefined = first;
    while (line) {
      this.nodes++;
      const spaces = spacesAt(line.content, 1);
      const rest = line.content.slice(1 + spaces);
      // `-` alone (a nested block or a null) and `- - x` are yaml's.
      if (!spaces || !rest || rest[0] === '#' || isItem(rest)) outside();
      const item: Line = { indent: indent + 1 + spaces, content: rest, offset: line.offset + 1 + spaces };
      let value: Node;
      if (KEY.test(rest)) [value, next] = this.map(item, item.indent, next);
      else value = this.inline(rest, item.offset, false);
      seq.items.push(value);
      const after = this.lines[next];
      if (after && after.indent > indent) outside();
      line = after?.indent === indent && isItem(after.content) ? after : undefined;
      if (line) next++;
    }
    return [seq, next];
  }

  /** A value on the rest of a line: a scalar, or a one-line flow mapping; a comment may follow. */
  inline(text: string, offset: number, inFlow: boolean): Node {
    this.nodes++;
    const quote = text[0];
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, 1);
      const inner = text.slice(1, close);
      // Escapes (`\` in double quotes, `''` in single) are yaml's to read.
      if (close === -1 || inFlow || (quote === '"' && inner.includes('\\')) || text[close + 1] === quote) outside();
      endsLine(text.slice(close + 1));
      return this.scalar(inner, offset);
    }
    if (quote === '{' && !inFlow) return this.flowMap(text, offset);
    if (text.startsWith('[]') && !inFlow) {
      endsLine(text.slice(2));
      return node(SEQ, { items: [], range: [offset, offset + 2, offset + 2], flow: true });
    }
    if (INDICATOR_FIRST.test(text)) outside();
    const comment = text.indexOf(' #');
    const value = (comment === -1 ? text : text.slice(0, comment)).replace(/ +$/, '');
    if (value.includes(': ') || value.endsWith(':') || (inFlow && /[,[\]{}#:]/.test(value)) || (!inFlow && value.includes('#'))) outside();
    if (!CORE_NOT_STRING.test(value)) return this.scalar(value, offset);
    if (!SIMPLE_NUMBER.test(value)) return outside();
    return this.scalar(Number(value), offset, value);
  }

  /** `{ key: value, … }` on one line, with plain keys and values. */
  flowMap(text: string, offset: number): YAMLMap {
    const close = text.indexOf('}');
    if (close === -1) outside();
    endsLine(text.slice(close + 1));
    const map = node(MAP, { items: [], range: [offset, offset + close + 1, offset + close + 1], flow: true });
    const body = text.slice(1, close);
    // A `#` may start a comment that hides the `}`; quotes may hold a `,`: both are yaml's.
    if (/[#'"]/.test(body)) outside();
    if (!body.replace(/ +/g, '')) return map;
    const keys = new Set<string>();
    const parts = body.split(',');
    // A comma each, then per pair its key and `:` (the value counts itself).
    this.nodes += parts.length - 1;
    let at = 1;
    for (const part of parts) {
      const start = at + spacesAt(part, 0);
      const entry = text.slice(start, at + part.length).replace(/ +$/, '');
      const match = KEY.exec(entry) ?? outside();
      const name = match[1];
      const valueAt = match[0].length + spacesAt(entry, match[0].length);
      const value = entry.slice(valueAt);
      if (!value || NOT_STRINGS.has(name) || keys.has(name)) outside();
      keys.add(name);
      this.nodes += 2;
      map.items.push(node(PAIR, { key: this.scalar(name, offset + start), value: this.inline(value, offset + start + valueAt, true) }));
      at += part.length + 1;
    }
    return map;
  }

  scalar(value: string | number, offset: number, source = String(value)): Scalar {
    return node(SCALAR, { value, source, range: [offset, offset + source.length, offset + source.length] });
  }
}

/**
 * yaml's nodes, made without their constructors: each defines a symbol on the new instance, which
 * was the costliest part of reading 10,000 assets. Each is made on a real node of its class (the
 * symbol inherited), so yaml's type guards, `instanceof` and methods see a node of that class.
 */
const SCALAR = new Scalar<unknown>(null);
const MAP = new YAMLMap<unknown, unknown>();
const SEQ = new YAMLSeq<unknown>();
const PAIR = new Pair<unknown, unknown>(null);

function node<T extends object>(prototype: T, own: Partial<T>): T {
  return Object.assign(Object.create(prototype) as T, own);
}

const isItem = (content: string): boolean => content === '-' || content.startsWith('- ');
function spacesAt(text: string, from: number): number {
  let end = from;
  while (text.charCodeAt(end) === 32) end++;
  return end - from;
}

/** What may follow a value on its line: spaces, then a comment after at least one space. */
function endsLine(rest: string): void {
  const trimmed = rest.replace(/^ +/, '');
  if (trimmed && !(trimmed[0] === '#' && trimmed.length < rest.length)) outside();
}
