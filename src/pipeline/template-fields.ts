// Reading the template fields of a manifest (docs/build.md "Templates"): `vars`, `defaults.style`
// and `${name}` in defaults, a `matrix`, and each text checked for unknown variables — every
// problem reported on the manifest's walker at the file:line:col of the text it concerns.
import { isMap, isScalar, isSeq, Scalar, type Node } from 'yaml';
import type { ManifestIssue } from './errors.js';
import { MANIFEST_LIMITS, tooLongExpanded } from './manifest-limits.js';
import { hasTemplate, readTemplate, renderedLength, renderTemplate, VARIABLE_NAME, type TemplateText } from './template-text.js';

type Node_ = Node | null;
export type Scope = ReadonlyMap<string, string>;

/** What reading templates needs of the manifest's walker (./validate.ts). */
export interface TemplateWalker {
  issue(node: Node_ | undefined, field: string, message: string): void;
  issueAt(offset: number, field: string, message: string): void;
  resolve(node: Node_ | undefined): Node_;
  readonly issues: readonly ManifestIssue[];
}

/** A field of a mapping, key and value resolved. */
export interface Field {
  key: Node_;
  name: string | undefined;
  value: Node_;
}

export const stringOf = (node: Node_ | undefined): string | undefined =>
  isScalar(node) && typeof node.value === 'string' ? node.value : undefined;

/** A scalar's value as a variable's: texts, numbers and booleans as written; anything else is refused. */
function valueOf(node: Node_): string | undefined {
  const value = isScalar(node) ? node.value : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

export function copyScalar(original: Node, value: string): Scalar {
  const scalar = new Scalar(value);
  scalar.range = original.range;
  return scalar;
}

/** Reads a text as a template, reporting a malformed `${` and unknown names where they are. */
export function checkText(walker: TemplateWalker, node: Node, text: string, field: string, names: ReadonlySet<string>): TemplateText {
  const template = hasTemplate(text) ? readTemplate(text) : { parts: [text], uses: new Map<string, number>(), problems: [] };
  for (const problem of template.problems) walker.issueAt(offsetIn(node, problem.at), field, problem.message);
  for (const [name, at] of template.uses) {
    if (names.has(name)) continue;
    const known = [...names].sort();
    const hint = known.length ? `known: ${known.join(', ')}` : 'none is defined: add it under vars (or this entry’s matrix)';
    walker.issueAt(offsetIn(node, at), field, `unknown variable \${${name}} (${hint})`);
  }
  return template;
}

/** The source offset of index `at` of a scalar's text, when the text is written there as it reads; else its start. */
function offsetIn(node: Node, at: number): number {
  const [start, end] = node.range ?? [0, 0];
  const text = stringOf(node) ?? '';
  const type = isScalar(node) ? node.type : undefined;
  if (type === 'PLAIN' && end - start === text.length) return start + at;
  if ((type === 'QUOTE_DOUBLE' || type === 'QUOTE_SINGLE') && end - start === text.length + 2) return start + 1 + at;
  return start;
}

export function readVars(walker: TemplateWalker, entry: { key: Node; value: Node_ } | undefined): Map<string, string> {
  const vars = new Map<string, string>();
  if (!entry) return vars;
  const map = walker.resolve(entry.value);
  if (!isMap(map)) return (walker.issue(map ?? entry.key, 'vars', 'must be a mapping of name → text, e.g. { theme: dungeon }'), vars);
  for (const pair of map.items) {
    const key = walker.resolve(pair.key as Node_);
    const name = stringOf(key);
    if (name === undefined || !VARIABLE_NAME.test(name)) {
      walker.issue(key ?? map, 'vars', notAName(name));
      continue;
    }
    const node = walker.resolve(pair.value as Node_);
    const value = valueOf(node);
    if (value === undefined) walker.issue(node ?? key, `vars.${name}`, 'must be a text or a number');
    else vars.set(name, value);
  }
  return vars;
}

const notAName = (name: string | undefined): string =>
  `${name === undefined ? 'a key' : `"${name}"`} is not a variable name: letters, digits and _, not starting with a digit`;

/** `defaults.style` (rendered with `vars`); `${name}` in defaults.agent and defaults.out replaced in place. */
export function readDefaults(walker: TemplateWalker, defaults: Node_, vars: Scope): string | undefined {
  if (!isMap(defaults)) return undefined;
  const names = new Set(vars.keys());
  let style: string | undefined;
  for (const pair of defaults.items) {
    const name = stringOf(walker.resolve(pair.key as Node_));
    const value = walker.resolve(pair.value as Node_);
    const text = stringOf(value);
    // Rendered once here, with vars alone: refused first when that would be past the limit.
    const rendered = (field: string): string | undefined => {
      const template = checkText(walker, value!, text!, field, names);
      const length = renderedLength(template, 1, (variable) => vars.get(variable)?.length ?? 0);
      if (length > MANIFEST_LIMITS.expandedText) return void walker.issue(value, field, tooLongExpanded(length));
      return renderTemplate(template, vars);
    };
    if (name === 'style') {
      if (text === undefined) walker.issue(value ?? (pair.key as Node), 'defaults.style', 'must be a text ("" for no style)');
      else style = rendered('defaults.style')?.trim() || undefined;
    } else if ((name === 'agent' || name === 'out') && text !== undefined && hasTemplate(text)) {
      const expanded = rendered(`defaults.${name}`);
      if (expanded !== undefined) pair.value = copyScalar(value!, expanded);
    }
  }
  return style;
}

/** A matrix's variables and their values, in the order written; undefined when it is malformed. */
export function readMatrix(walker: TemplateWalker, { key, value: node }: Field, field: string): [string, string[]][] | undefined {
  const at = `${field}.matrix`;
  if (!isMap(node) || !node.items.length) {
    walker.issue(node ?? key, at, 'must be a mapping of variable → list of values, e.g. { color: [red, blue] }');
    return undefined;
  }
  const matrix: [string, string[]][] = [];
  let valid = true;
  for (const pair of node.items) {
    const nameNode = walker.resolve(pair.key as Node_);
    const name = stringOf(nameNode);
    const list = walker.resolve(pair.value as Node_);
    if (name === undefined || !VARIABLE_NAME.test(name)) {
      walker.issue(nameNode ?? node, at, notAName(name));
      valid = false;
    } else if (!isSeq(list) || !list.items.length) {
      walker.issue(list ?? nameNode, `${at}.${name}`, 'must be a non-empty list of values, e.g. [red, blue]');
      valid = false;
    } else {
      const values = list.items.map((item) => walker.resolve(item as Node_));
      const bad = values.find((value) => valueOf(value) === undefined);
      if (bad !== undefined) {
        walker.issue(bad ?? list, `${at}.${name}`, 'values must be texts or numbers (not lists, mappings or empty)');
        valid = false;
      } else matrix.push([name, values.map((value) => valueOf(value)!)]);
    }
  }
  return valid ? matrix : undefined;
}
