// One text of a manifest with `${name}` in it (docs/build.md "Templates"): read once into parts,
// then rendered for each combination of a matrix. `$${` is a literal `${`; any other `$` is text.
// Pure: no YAML, no positions beyond an index into the text.

/** A variable's name: a letter or `_`, then letters, digits and `_`. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A literal piece, or a variable used at `at` (the index of its `$` in the text). */
export type TemplatePart = string | { name: string; at: number };

export interface TemplateText {
  parts: TemplatePart[];
  /** The variables it uses, each with where it is first used. */
  uses: Map<string, number>;
  /** `${` that starts no variable: an index into the text and what is wrong. */
  problems: { at: number; message: string }[];
}

const TOKEN = /\$\$\{|\$\{([^{}]*)\}|\$\{/g;

/** Whether a text needs reading as a template at all (most texts have no `${`). */
export const hasTemplate = (text: string): boolean => text.includes('${');

export function readTemplate(text: string): TemplateText {
  const parts: TemplatePart[] = [];
  const uses = new Map<string, number>();
  const problems: TemplateText['problems'] = [];
  let literal = '';
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    literal += text.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '$${') {
      literal += '${';
      continue;
    }
    const name = match[1];
    if (name === undefined || !VARIABLE_NAME.test(name)) {
      const shown = name === undefined ? '"${" without a closing "}"' : `"\${${name}}" is not a variable name`;
      problems.push({ at: match.index, message: `${shown}: write \${name} (letters, digits, _), or $\${ for a literal \${` });
      literal += match[0];
      continue;
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push({ name, at: match.index });
    if (!uses.has(name)) uses.set(name, match.index);
  }
  literal += text.slice(last);
  if (literal || !parts.length) parts.push(literal);
  return { parts, uses, problems };
}

/** The text with each variable replaced by its value in `scope` (every name was checked before). */
export function renderTemplate(template: TemplateText, scope: ReadonlyMap<string, string>): string {
  if (template.parts.length === 1 && typeof template.parts[0] === 'string') return template.parts[0];
  let text = '';
  for (const part of template.parts) text += typeof part === 'string' ? part : (scope.get(part.name) ?? '');
  return text;
}

/**
 * The length of the text rendered, reckoned without rendering it (a template can make far more
 * text than it takes to write): each literal piece counted `times`, each use of a variable as
 * `lengthOf` says — one value's length, or the sum over `times` renderings.
 */
export function renderedLength(template: TemplateText, times: number, lengthOf: (name: string) => number): number {
  let length = 0;
  for (const part of template.parts) length += typeof part === 'string' ? part.length * times : lengthOf(part.name);
  return length;
}

/** The last character of the text rendered in `scope` ('' for an empty text), without rendering it. */
export function lastCharacterOf(template: TemplateText, scope: ReadonlyMap<string, string>): string {
  for (let index = template.parts.length - 1; index >= 0; index--) {
    const part = template.parts[index];
    const text = typeof part === 'string' ? part : (scope.get(part.name) ?? '');
    if (text) return text.at(-1)!;
  }
  return '';
}
