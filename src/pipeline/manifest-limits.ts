// How big a manifest may be. Parsing builds an object per YAML node (a 2 MB flow list of a million
// numbers took 1 GB), and an alias makes the walk visit its anchor again: both are counted before
// they cost anything. docs/build.md ("Limits") documents the same numbers.
import { isAlias, isMap, isPair, isScalar, isSeq, Lexer, visit, type Document, type Node } from 'yaml';

export const MANIFEST_LIMITS = {
  /** The file, refused before it is read. */
  bytes: 8 * 2 ** 20,
  /** Keys, values and list items (about 20,000 assets); also the nodes walked through aliases. */
  nodes: 200_000,
  /**
   * Characters of one text of an asset once its templates are expanded (vars, matrix values, the
   * style joined to a prompt), and of all the texts templates make in a manifest: reckoned from
   * the lengths before anything is expanded (a 100 KB var used 10 times across a 2,000-entry matrix
   * is 2 GB of prompts).
   */
  expandedText: 65_536,
  expandedTotal: 16 * 2 ** 20,
} as const;

/** Lexer tokens that start a node, or stand for one (an empty value after `-`, `?`, `:` or `,`). */
const NODE_TOKENS = new Set(['\x1f', '-', '?', ':', ',', '[', '{']);
/** Markers the lexer adds that are not source text. */
const MARKERS = new Set(['\x02', '\x1f', '\x18', '\u{FEFF}']);

/**
 * Counts the nodes of manifest text with the lexer alone (no tree is built); the source offset
 * where the count passes the limit, or undefined when it does not.
 */
export function offsetPastNodeLimit(text: string, limit: number = MANIFEST_LIMITS.nodes): number | undefined {
  let count = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    const first = token[0];
    if (NODE_TOKENS.has(token) || first === '*' || first === '"' || first === "'") {
      if (++count > limit) return offset;
    }
    if (!MARKERS.has(token)) offset += token.length;
  }
  return undefined;
}

/**
 * One pass over the document for what yaml would do in a pass per item: resolves aliases (its
 * `Alias.resolve` visits the whole document each time), charging every resolution the size of its
 * anchor's subtree, and finds repeated keys (its `uniqueKeys` compares each key with every other).
 */
export class AliasIndex {
  /** Source offsets of keys that repeat an earlier key of their mapping (scalars compared by value). */
  readonly repeatedKeys: number[] = [];
  readonly #targets = new Map<Node, Node | undefined>();
  readonly #sizes = new Map<Node, number>();
  #walked = 0;

  constructor(doc: Document) {
    const anchors = new Map<string, Node>();
    visit(doc, {
      Node: (_key, node) => {
        // An alias refers to the last anchor of its name before it, as yaml resolves it.
        if (isAlias(node)) this.#targets.set(node, anchors.get(node.source));
        else if (node.anchor) anchors.set(node.anchor, node);
        if (!isMap(node)) return;
        const seen = new Set<unknown>();
        for (const { key } of node.items) {
          if (!isScalar(key)) continue;
          if (seen.has(key.value)) this.repeatedKeys.push(key.range?.[0] ?? 0);
          else seen.add(key.value);
        }
      },
    });
  }

  /** The anchored node; throws AliasLimitError once the nodes walked through aliases pass the limit. */
  resolve(alias: Node): Node | undefined {
    const target = this.#targets.get(alias);
    if (target) {
      this.#walked += this.#size(target);
      if (this.#walked > MANIFEST_LIMITS.nodes) throw new AliasLimitError(alias);
    }
    return target;
  }

  /** Nodes under `root`, itself included; an alias inside counts as one (it is charged when resolved). */
  #size(root: Node): number {
    const known = this.#sizes.get(root);
    if (known !== undefined) return known;
    let size = 0;
    // A loop, not recursion: a deep anchor must not overflow the stack.
    const pending: unknown[] = [root];
    while (pending.length) {
      const node = pending.pop();
      if (isPair(node)) pending.push(node.key, node.value);
      else if (node !== null && node !== undefined) {
        size++;
        if (isMap(node) || isSeq(node)) for (const item of node.items as unknown[]) pending.push(item);
      }
    }
    this.#sizes.set(root, size);
    return size;
  }
}

export class AliasLimitError extends Error {
  constructor(readonly alias: Node) {
    super('alias limit');
  }
}

export function tooManyNodes(what: string): string {
  const limit = MANIFEST_LIMITS.nodes;
  return `the manifest ${what} more than ${limit} YAML nodes (keys, values, list items), the most assetgen reads; split it into several manifests (-f)`;
}

/** A text whose templates would expand past MANIFEST_LIMITS.expandedText. */
export const tooLongExpanded = (length: number): string =>
  `expands to ${length} characters, past the ${MANIFEST_LIMITS.expandedText} one text may have once its templates are expanded (vars, matrix values, style); use shorter vars`;

/** An entry whose templates would bring the manifest's expanded texts past MANIFEST_LIMITS.expandedTotal. */
export const tooMuchExpanded = (length: number): string =>
  `its templates expand to ${length} characters, bringing the manifest past the ${MANIFEST_LIMITS.expandedTotal} characters its templates may make in all; use shorter vars or fewer combinations, or split it into several manifests (-f)`;

/** 1-based line and column of a source offset (before any parse, so without yaml's LineCounter). */
export function positionIn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return { line, col: offset - text.lastIndexOf('\n', offset - 1) };
}
