// Walking a manifest's YAML tree with positions: each problem is an issue at the line and column of
// the node it concerns; aliases are resolved through the bounded index (manifest-limits.ts); the
// fields of a mapping are read with unknown ones reported.
import { isAlias, isMap, isScalar, LineCounter, parseDocument, type Node } from 'yaml';
import type { ManifestIssue } from './errors.js';
import { AliasIndex } from './manifest-limits.js';

export type Node_ = Node | null;
export interface Entry {
  key: Node;
  value: Node_;
}

export class Walker {
  readonly issues: ManifestIssue[] = [];

  constructor(
    readonly contents: Node_,
    readonly lines: LineCounter,
    readonly aliases?: AliasIndex,
  ) {}

  /** The walker of yaml's document: its syntax errors and repeated keys come first, as issues. */
  static ofYaml(text: string): Walker {
    const lines = new LineCounter();
    // Repeated keys are found by the index below: yaml's own check compares every key with every
    // other key of its mapping (20,000 keys: 6 s).
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
    const aliases = new AliasIndex(doc);
    const walker = new Walker(doc.contents, lines, aliases);
    const errors = [
      ...doc.errors.map((error) => ({ offset: errorOffset(text, error), field: '', message: error.message })),
      // The parser knows no field names; for a repeated key, the key is the field.
      ...aliases.repeatedKeys.map((offset) => ({
        offset,
        field: /^[^\s:,{}[\]]+/.exec(text.slice(offset))?.[0] ?? '',
        message: 'appears twice in one mapping',
      })),
    ];
    for (const error of errors.sort((a, b) => a.offset - b.offset)) walker.issueAt(error.offset, error.field, error.message);
    return walker;
  }

  issueAt(offset: number, field: string, message: string): void {
    const { line, col } = this.lines.linePos(offset);
    this.issues.push({ line, col, field, message });
  }

  positionOf(node: Node_ | undefined): { line: number; col: number } {
    return this.lines.linePos(node?.range?.[0] ?? 0);
  }

  issue(node: Node_ | undefined, field: string, message: string): void {
    this.issueAt(node?.range?.[0] ?? 0, field, message);
  }

  resolve(node: Node_ | undefined): Node_ {
    return isAlias(node) ? (this.aliases?.resolve(node) ?? null) : (node ?? null);
  }

  /** The fields of a mapping, with unknown and non-string keys reported. */
  fields(node: Node, field: string, allowed: string[]): Map<string, Entry> {
    const entries = new Map<string, Entry>();
    if (!isMap(node)) return entries;
    for (const pair of node.items) {
      const key = this.resolve(pair.key as Node_);
      const name = isScalar(key) ? key.value : undefined;
      if (typeof name !== 'string') {
        this.issue(key ?? node, field, 'field names must be strings');
      } else if (!allowed.includes(name)) {
        this.issue(key, join(field, name), `unknown field (expected one of: ${allowed.join(', ')})`);
      } else entries.set(name, { key: key!, value: this.resolve(pair.value as Node_) });
    }
    return entries;
  }

  string(entry: Entry | undefined, field: string): string | undefined {
    if (!entry) return undefined;
    const value = isScalar(entry.value) ? entry.value.value : undefined;
    if (typeof value === 'string' && value.trim()) return value;
    if (typeof value === 'string' || value === null || entry.value === null) this.issue(entry.value ?? entry.key, field, 'is empty');
    else if (isScalar(entry.value))
      this.issue(entry.value, field, `must be a string (quote it: "${entry.value.source ?? JSON.stringify(value)}")`);
    else this.issue(entry.value, field, 'must be a string');
    return undefined;
  }
}

const join = (parent: string, name: string): string => (parent ? `${parent}.${name}` : name);

/**
 * Where to point at a YAML error: where the parser stopped, except for a quote never closed, which
 * it finds at the end of the file: the quote that opened the string is the line to fix.
 */
function errorOffset(text: string, error: { code: string; pos: [number, number]; message: string }): number {
  const quote = error.code === 'MISSING_CHAR' ? /Missing closing (["'])quote/.exec(error.message)?.[1] : undefined;
  if (quote === undefined) return error.pos[0];
  // The last quote before the end that is not escaped (\" in a double-quoted string, '' in a single-quoted one).
  let opened = text.lastIndexOf(quote, Math.min(error.pos[0], text.length) - 1);
  for (;;) {
    if (quote === '"' && opened > 0 && text[opened - 1] === '\\') opened = text.lastIndexOf(quote, opened - 1);
    else if (quote === "'" && opened > 0 && text[opened - 1] === "'") opened = text.lastIndexOf(quote, opened - 2);
    else break;
  }
  return opened >= 0 ? opened : error.pos[0];
}
