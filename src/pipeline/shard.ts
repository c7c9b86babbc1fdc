// Which assets a run looks at: ids and globs (`--only`-style selection) and `--shard k/n` for
// splitting one build across CI jobs. A shard is decided by a hash of the asset's id alone, so
// adding or reordering assets never moves the others between shards.
import { PipelineError } from './errors.js';
import { sha256 } from './hash.js';

export interface Shard {
  /** 1-based, as written: `--shard 2/4` is index 2 of total 4. */
  index: number;
  total: number;
}

export function parseShard(text: string): Shard {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  const index = Number(match?.[1]);
  const total = Number(match?.[2]);
  if (!match || total < 1 || index < 1 || index > total)
    throw new PipelineError(`--shard ${text}: expected k/n with 1 ≤ k ≤ n, e.g. --shard 2/4.`);
  return { index, total };
}

/** The shard (1-based) an id falls in among `total`. */
export function shardOf(id: string, total: number): number {
  return (Number.parseInt(sha256(id).slice(0, 8), 16) % total) + 1;
}

export function inShard(id: string, shard: Shard | undefined): boolean {
  return !shard || shardOf(id, shard.total) === shard.index;
}

/** A glob over ids: `*` any run of characters, `?` one; anything else is literal. */
export function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/**
 * A selection of ids by exact id or glob; empty selects everything. `unmatched` lists the
 * selectors that matched no id, which a command reports (a typo should not build nothing quietly).
 */
export function selectIds(ids: readonly string[], selectors: readonly string[]): { selected: Set<string>; unmatched: string[] } {
  if (!selectors.length) return { selected: new Set(ids), unmatched: [] };
  const selected = new Set<string>();
  const unmatched: string[] = [];
  for (const selector of selectors) {
    const pattern = globToRegExp(selector);
    const hits = ids.filter((id) => pattern.test(id));
    if (!hits.length) unmatched.push(selector);
    for (const id of hits) selected.add(id);
  }
  return { selected, unmatched };
}
