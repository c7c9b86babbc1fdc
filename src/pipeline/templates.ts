// Prompt templates (docs/build.md "Templates"): `vars` at the top, `${name}` in an asset's texts,
// a `style` joined to every prompt, and `matrix` entries expanded into one asset per combination.
// It works on the YAML nodes before the assets are read (./validate.ts), so everything after —
// planning, the lock, the gallery, --json — sees only expanded assets, and every problem keeps the
// file:line:col of the text it concerns. An expanded text keeps its template's position.
import { isAlias, isMap, isSeq, Pair, YAMLMap, type Node } from 'yaml';
import type { ManifestIssue } from './errors.js';
import {
  checkText,
  copyScalar,
  readDefaults,
  readMatrix,
  readVars,
  stringOf,
  type Field,
  type Scope,
  type TemplateWalker,
} from './template-fields.js';
import { MANIFEST_LIMITS, tooLongExpanded, tooMuchExpanded } from './manifest-limits.js';
import { hasTemplate, lastCharacterOf, renderedLength, renderTemplate, type TemplateText } from './template-text.js';

/** The most assets all the matrices of one manifest may expand to (each asset is a paid call). */
export const MAX_EXPANDED_ASSETS = 10_000;

/** An asset's texts in which `${name}` is replaced (and in every `set` value). */
const TEXT_FIELDS = new Set(['id', 'prompt', 'video', 'workflow', 'agent', 'out', 'aspectRatio']);
/** The texts a style is joined to (and every `set` value): "<prompt>, <style>". */
const PROMPT_FIELDS = new Set(['prompt', 'video']);

type Node_ = Node | null;

export interface ExpandedAssets {
  /** The asset entries to read: an entry as written, or one per combination of its matrix. */
  items: unknown[];
  /** The field path of item `index` in messages: `assets[2]`, `assets[2][color=red,size=small]`. */
  fieldOf(index: number): string;
  /** Item `index` made by a `matrix` entry: that entry's id pattern (`potion-${color}`), which names the group; else undefined. */
  matrixOf(index: number): string | undefined;
}

/**
 * Applies `vars`, `style` and `matrix` to the manifest's top-level fields (resolved, as the walker
 * reads them). `defaults.agent` and `defaults.out` are replaced in place; the assets are returned.
 * Problems are reported on the walker; an entry with one is left out (its other fields unchecked).
 */
export function expandTemplates(walker: TemplateWalker, top: ReadonlyMap<string, { key: Node; value: Node_ }>): ExpandedAssets {
  const vars = readVars(walker, top.get('vars'));
  const style = readDefaults(walker, walker.resolve(top.get('defaults')?.value), vars);
  const list = top.get('assets')?.value;
  const source = isSeq(list) ? list.items : [];
  const expander = new Expander(walker, vars, style);
  const items: unknown[] = [];
  const labels: string[] = [];
  const matrices: (string | undefined)[] = [];
  source.forEach((item, index) => {
    const expanded = expander.entry(item as Node_, index) ?? [[item, `assets[${index}]`]];
    const matrix = matrixIdPattern(walker, item as Node_);
    for (const [node, label] of expanded) {
      items.push(node);
      labels.push(label);
      matrices.push(matrix);
    }
  });
  const matrixOf = (index: number): string | undefined => matrices[index];
  // The common manifest has no matrix: its fields keep their index without a label each.
  if (items.length === source.length && expander.changedCount === 0) return { items, fieldOf: (index) => `assets[${index}]`, matrixOf };
  return { items, fieldOf: (index) => labels[index] ?? `assets[${index}]`, matrixOf };
}

/** The id pattern of a `matrix` entry as written (`potion-${color}`); undefined for any other entry. */
function matrixIdPattern(walker: TemplateWalker, item: Node_): string | undefined {
  const node = walker.resolve(item);
  if (!isMap(node)) return undefined;
  const named = (name: string) => node.items.find((pair) => stringOf(walker.resolve(pair.key as Node_)) === name);
  return named('matrix') ? stringOf(walker.resolve(named('id')?.value as Node_)) : undefined;
}

/** Keeps one issue of those an expansion repeats (same place, same message), saying how many more. */
export function collapseCombinations(issues: ManifestIssue[]): ManifestIssue[] {
  const seen = new Map<string, { issue: ManifestIssue; more: number }>();
  const kept: ManifestIssue[] = [];
  for (const issue of issues) {
    const key = `${issue.line}:${issue.col}:${issue.field.replace(/^(assets\[\d+\])\[[^\]]*\]/, '$1')}:${issue.message}`;
    const first = seen.get(key);
    if (first) {
      first.more++;
      continue;
    }
    const copy = { ...issue };
    seen.set(key, { issue: copy, more: 0 });
    kept.push(copy);
  }
  for (const { issue, more } of seen.values()) if (more) issue.message += ` (and ${more} more combination${more === 1 ? '' : 's'})`;
  return kept;
}

class Expander {
  /** Assets the matrices made so far. */
  total = 0;
  /** Characters the templates made so far (MANIFEST_LIMITS.expandedTotal). */
  expanded = 0;
  changedCount = 0;

  constructor(
    readonly walker: TemplateWalker,
    readonly vars: Scope,
    readonly style: string | undefined,
  ) {}

  /** The fields of a mapping, keys and values resolved. */
  fieldsOf(map: YAMLMap): Field[] {
    return map.items.map((pair) => {
      const key = this.walker.resolve(pair.key as Node_);
      return { key, name: stringOf(key), value: this.walker.resolve(pair.value as Node_) };
    });
  }

  /** The entry's expansions with their labels; undefined when it is used as written. */
  entry(item: Node_, index: number): [unknown, string][] | undefined {
    const node = this.walker.resolve(item);
    if (!isMap(node)) return undefined;
    const named = (name: string) => node.items.find((pair) => stringOf(pair.key as Node_) === name);
    if (!named('matrix') && !named('style') && this.style === undefined && !node.items.some(needsRewrite)) return undefined;
    this.changedCount++;

    const field = `assets[${index}]`;
    const issues = this.walker.issues.length;
    const fields = this.fieldsOf(node);
    const find = (name: string) => fields.find((entry) => entry.name === name);
    const matrixField = find('matrix');
    const matrix = matrixField ? readMatrix(this.walker, matrixField, field) : [];
    // A malformed matrix still defines its names: its uses are not reported as unknown too.
    const matrixNames = isMap(matrixField?.value) ? this.fieldsOf(matrixField.value).map((entry) => entry.name) : [];
    const names = new Set([...this.vars.keys(), ...matrixNames.filter((name) => name !== undefined)]);
    const texts = new Map<Node, TemplateText>();
    const read = (value: Node_, at: string): TemplateText | undefined => {
      const text = stringOf(value);
      if (text === undefined) return undefined;
      const template = checkText(this.walker, value!, text, at, names);
      texts.set(value!, template);
      return template;
    };
    const sets = new Map<Node, Field[]>();
    for (const { name, value } of fields) {
      if (name && TEXT_FIELDS.has(name)) read(value, `${field}.${name}`);
      if (name !== 'set' || !isMap(value)) continue;
      sets.set(value, this.fieldsOf(value));
      for (const entry of sets.get(value)!) read(entry.value, `${field}.set.${entry.name ?? ''}`);
    }
    const styleField = find('style');
    const style = styleField && read(styleField.value, `${field}.style`);
    if (styleField && !style) this.walker.issue(styleField.value ?? styleField.key, `${field}.style`, 'must be a text ("" for no style)');
    if (matrix && matrixField) this.checkMatrixEntry(find('id'), find('out'), matrix, texts, field, matrixField.key);
    if (!matrix || this.walker.issues.length > issues) return [];

    const count = matrix.reduce((product, [, values]) => product * values.length, 1);
    if (matrixField && this.total + count > MAX_EXPANDED_ASSETS) {
      this.walker.issue(matrixField.key, `${field}.matrix`, tooMany(count));
      return [];
    }
    if (!this.checkSize({ fields, sets, texts, style, matrix, count, field, node })) return [];
    if (matrixField) this.total += count;
    return combinations(matrix, this.vars).map((scope): [unknown, string] => {
      const styleText = style ? renderTemplate(style, scope).trim() : this.style;
      const render = (value: Node_, prompt: boolean): Node_ => {
        const template = value && texts.get(value);
        if (!template) return value;
        const text = renderTemplate(template, scope);
        return copyScalar(value, prompt && styleText && text.trim() ? `${text.trimEnd()}, ${styleText}` : text);
      };
      const copy = mapLike(node);
      for (const { key, name, value } of fields) {
        if (name === 'matrix' || name === 'style') continue;
        const set = value && sets.get(value);
        if (!set) copy.items.push(new Pair(key, render(value, PROMPT_FIELDS.has(name ?? ''))));
        else
          copy.items.push(
            new Pair(
              key,
              mapLike(
                value,
                set.map((entry) => new Pair(entry.key, render(entry.value, true))),
              ),
            ),
          );
      }
      return [copy, matrix.length ? `${field}[${combinationLabel(matrix, scope)}]` : field];
    });
  }

  /**
   * Whether the entry's texts, once expanded, stay within the limits (MANIFEST_LIMITS): reckoned
   * from lengths alone, before anything is rendered — the longest each text can be, and what all
   * of them make across the combinations, added to the manifest's running total.
   */
  checkSize(entry: {
    fields: Field[];
    sets: Map<Node, Field[]>;
    texts: Map<Node, TemplateText>;
    style: TemplateText | undefined;
    matrix: [string, string[]][];
    count: number;
    field: string;
    node: Node;
  }): boolean {
    const { fields, sets, texts, style, matrix, count, field } = entry;
    // A variable's longest value, and the length of its values over all `count` combinations.
    const inMatrix = matrixLengths(matrix, count);
    const longest = (name: string): number => inMatrix.get(name)?.longest ?? this.vars.get(name)?.length ?? 0;
    const summed = (name: string): number => inMatrix.get(name)?.summed ?? count * (this.vars.get(name)?.length ?? 0);
    // "<prompt>, <style>": the style and its comma joined to each prompt.
    const styleLongest = style ? renderedLength(style, 1, longest) : (this.style?.length ?? 0);
    const styleSummed = style ? renderedLength(style, count, summed) : count * (this.style?.length ?? 0);
    let fits = true;
    let total = 0;
    const measure = (value: Node_, at: string, prompt: boolean): void => {
      const template = value && texts.get(value);
      if (!template) return;
      const joined = prompt && styleLongest > 0;
      const length = renderedLength(template, 1, longest) + (joined ? 2 + styleLongest : 0);
      total += renderedLength(template, count, summed) + (joined ? 2 * count + styleSummed : 0);
      if (length <= MANIFEST_LIMITS.expandedText) return;
      this.walker.issue(value, at, tooLongExpanded(length));
      fits = false;
    };
    for (const { name, value } of fields) {
      if (name === 'matrix' || name === 'style') continue;
      const set = value && sets.get(value);
      if (!set) measure(value, `${field}.${name ?? ''}`, PROMPT_FIELDS.has(name ?? ''));
      else for (const item of set) measure(item.value, `${field}.set.${item.name ?? ''}`, true);
    }
    if (!fits) return false;
    this.expanded += total;
    if (this.expanded <= MANIFEST_LIMITS.expandedTotal) return true;
    this.walker.issue(entry.node, field, tooMuchExpanded(total));
    return false;
  }

  /** A matrix entry's id must vary with it, and so must a single-file `out`: else every combination collides. */
  checkMatrixEntry(
    id: Field | undefined,
    out: Field | undefined,
    matrix: [string, string[]][],
    texts: Map<Node, TemplateText>,
    field: string,
    matrixKey: Node_,
  ): void {
    const names = matrix.map(([name]) => name);
    const usesMatrix = (value: Node_): boolean => names.some((name) => (value && texts.get(value))?.uses.has(name));
    const hint = names.map((name) => `\${${name}}`).join(', ');
    if (!id || stringOf(id.value) === undefined)
      this.walker.issue(id?.value ?? matrixKey, `${field}.id`, `a matrix entry needs an id pattern that uses its variables (${hint})`);
    else if (!usesMatrix(id.value))
      this.walker.issue(id.value, `${field}.id`, `uses no matrix variable, so every combination would get the same id: use ${hint}`);
    const outTemplate = out?.value ? texts.get(out.value) : undefined;
    if (outTemplate && !usesMatrix(out!.value) && !/[\\/]/.test(lastCharacterOf(outTemplate, this.vars)))
      this.walker.issue(
        out!.value,
        `${field}.out`,
        `one file for every combination: use a folder ending in / or a matrix variable (${hint})`,
      );
  }
}

/**
 * For each matrix variable: its longest value, and the length of its values over the entry's
 * `count` combinations (each value is in count / values of them).
 */
function matrixLengths(matrix: [string, string[]][], count: number): Map<string, { longest: number; summed: number }> {
  const lengths = new Map<string, { longest: number; summed: number }>();
  for (const [name, values] of matrix) {
    let longest = 0;
    let all = 0;
    for (const value of values) {
      longest = Math.max(longest, value.length);
      all += value.length;
    }
    lengths.set(name, { longest, summed: all * (count / values.length) });
  }
  return lengths;
}

/** Longest a combination's name in messages may be: `color=red,size=small`, cut past this (values can be long). */
const LABEL_LENGTH = 120;

function combinationLabel(matrix: [string, string[]][], scope: Scope): string {
  let label = '';
  for (const [name] of matrix) {
    // Each piece cut before it is joined: a long value is never copied whole.
    label += `${label ? ',' : ''}${name.slice(0, LABEL_LENGTH)}=${(scope.get(name) ?? '').slice(0, LABEL_LENGTH)}`;
    if (label.length > LABEL_LENGTH) return `${label.slice(0, LABEL_LENGTH)}…`;
  }
  return label;
}

/** A new mapping at the place of `original` (its errors point at the template). */
function mapLike(original: Node, items: Pair[] = []): YAMLMap {
  const map = new YAMLMap();
  map.range = original.range;
  map.items = items;
  return map;
}

const tooMany = (count: number): string =>
  `expands to ${count} assets, past the ${MAX_EXPANDED_ASSETS} that all the matrices of a manifest may make; split it into several manifests (-f)`;

/**
 * Whether an entry's field must be read here: a text with `${` (an alias may be one: it is resolved
 * here, once), or a `set` with one.
 */
function needsRewrite(pair: Pair): boolean {
  const name = stringOf(pair.key as Node_);
  const value = pair.value as Node_;
  if (name === 'set') return isAlias(value) || (isMap(value) && value.items.some((item) => isTemplated(item.value as Node_)));
  return name !== undefined && TEXT_FIELDS.has(name) && isTemplated(value);
}

const isTemplated = (value: Node_): boolean => isAlias(value) || hasTemplate(stringOf(value) ?? '');

/** Every combination as a scope over `vars`, in the order written, the last variable changing fastest. */
function combinations(matrix: [string, string[]][], vars: Scope): Map<string, string>[] {
  let scopes = [new Map(vars)];
  for (const [name, values] of matrix) scopes = scopes.flatMap((scope) => values.map((value) => new Map(scope).set(name, value)));
  return scopes;
}

/** `${…}` unquoted inside `{ … }` or `[ … ]` is not YAML (braces end a flow mapping): the hint when a file does not parse. */
export function quotingHint(text: string, issues: readonly ManifestIssue[]): string | undefined {
  if (!issues.some((issue) => issue.field === '') || !/[{[][^\n'"]*\$\{/.test(text)) return undefined;
  return 'Inside { … } or [ … ], quote a text that uses ${…}: { id: "potion-${color}" } (docs/build.md, Templates).';
}
