// The manifest's `post:` lists (on an image asset, and in `defaults`): read from the YAML tree and
// checked by the imaging core's own parser (src/imaging/post-steps.ts), each problem placed at the
// line and column of the value it names. Loads no image library.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { PostSpecError } from '../imaging/errors.js';
import { parsePostSteps, type PostStep } from '../imaging/post-steps.js';
import type { AssetKind, OutputTarget } from './records.js';
import { postOutProblem } from './post.js';

export type { PostStep };

/** What reading needs of the validator's walker (validate.ts). */
export interface PostReader {
  resolve(node: Node | null | undefined): Node | null;
  issue(node: Node | null | undefined, field: string, message: string): void;
}

/** The parsed steps (an empty list: none), or undefined after reporting the problem. */
export function readPost(reader: PostReader, entry: { key: Node; value: Node | null } | undefined, field: string): PostStep[] | undefined {
  if (!entry) return undefined;
  try {
    return parsePostSteps(plainValue(reader, entry.value));
  } catch (error) {
    if (!(error instanceof PostSpecError)) throw error;
    reader.issue(nodeAt(reader, entry.value, error.path) ?? entry.key, field, error.message);
    return undefined;
  }
}

/** The node a PostSpecError's path leads to, as deep as the tree goes (`- trim: 5` ends at its value). */
function nodeAt(reader: PostReader, start: Node | null, steps: readonly (string | number)[]): Node | null {
  let node = reader.resolve(start);
  for (const step of steps) {
    let next: Node | null | undefined;
    if (typeof step === 'number' && isSeq(node)) next = node.items[step] as Node | undefined;
    else if (typeof step === 'string' && isMap(node)) {
      const pair = node.items.find((item) => {
        const key = reader.resolve(item.key as Node);
        return isScalar(key) && key.value === step;
      });
      next = pair ? ((pair.value as Node | null) ?? (pair.key as Node)) : undefined;
    }
    if (!next) break;
    node = reader.resolve(next);
  }
  return node;
}

/** The YAML value as plain data (aliases followed by the walker, which bounds their expansion). */
function plainValue(reader: PostReader, start: Node | null): unknown {
  const node = reader.resolve(start);
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => plainValue(reader, item as Node));
  if (isMap(node)) {
    const value: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = reader.resolve(pair.key as Node);
      const name = isScalar(key) ? String(key.value) : '';
      Object.defineProperty(value, name, { value: plainValue(reader, pair.value as Node), enumerable: true, writable: true });
    }
    return value;
  }
  return null;
}

/**
 * An asset's steps: its own list replaces defaults.post (`post: []`: none), and defaults.post is for
 * image assets only. A file `out` must have the extension the steps write.
 */
export function assetPost(
  reader: PostReader,
  asset: {
    entries: ReadonlyMap<string, { key: Node; value: Node | null }>;
    node: Node;
    field: string;
    kind?: AssetKind;
    out?: OutputTarget;
  },
  defaults: PostStep[] | undefined,
): PostStep[] | undefined {
  const { entries, field, out } = asset;
  const post = entries.has('post') ? readPost(reader, entries.get('post'), `${field}.post`) : asset.kind === 'image' ? defaults : undefined;
  const problem = post?.length && out ? postOutProblem(out, post) : undefined;
  if (problem) reader.issue(entries.get('out')?.value ?? asset.node, `${field}.out`, problem);
  return post;
}
