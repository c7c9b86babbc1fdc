// The manifest's `checks:` (on an asset, and in `defaults`) and `tile:` (docs/check.md): read from
// the YAML tree, each problem at the line and column of the value it names. An asset's rules
// replace the defaults' rule by rule; `false` turns one of them off for that asset.
import { isMap, isScalar } from 'yaml';
import { COLOUR_COUNT_CAP, HASH_BITS } from '../imaging/limits.js';
import type { AssetKind, CheckRules } from './records.js';
import type { Entry, Node_, Walker } from './manifest-walker.js';

export const CHECK_RULES = ['alpha', 'fill', 'colors', 'seam', 'outlier'] as const;
type RuleName = (typeof CHECK_RULES)[number];

/** Rules as written: each one given, or `false` (off here, whatever defaults.checks says). */
export type WrittenChecks = { [Name in RuleName]?: CheckRules[Name] | false };

/** The kinds whose outputs are images to check: a video's are not, and defaults.checks is for images and workflows. */
const CHECKED_KINDS: readonly AssetKind[] = ['image', 'workflow', 'sheet'];
const DEFAULTED_KINDS: readonly AssetKind[] = ['image', 'workflow'];

/** The bounds of each `{max}`/`{min, max}` rule: what a figure of its kind can be. */
const RANGES = {
  fill: { low: 0, high: 1, whole: false, unit: 'a fraction of the canvas from 0 to 1' },
  colors: { low: 1, high: COLOUR_COUNT_CAP, whole: true, unit: `a whole number of colours from 1 to ${COLOUR_COUNT_CAP}` },
  seam: { low: 0, high: 255, whole: false, unit: 'a seam score from 0 to 255' },
  outlier: { low: 0, high: HASH_BITS, whole: true, unit: `a whole number of bits from 0 to ${HASH_BITS}` },
} as const;

/** Where each rule of a `checks:` was written, for the checks made once the asset is read. */
const RULE_KEYS = new WeakMap<WrittenChecks, Map<string, Node_>>();

/** `checks:` as written (each rule that reads well; the others reported), or undefined when absent or not a mapping. */
export function readChecks(walker: Walker, entry: Entry | undefined, field: string): WrittenChecks | undefined {
  if (!entry) return undefined;
  if (!isMap(entry.value))
    return void walker.issue(entry.value ?? entry.key, field, `must be a mapping of rules (${CHECK_RULES.join(', ')})`);
  const fields = walker.fields(entry.value, field, [...CHECK_RULES]);
  const rules: WrittenChecks = {};
  RULE_KEYS.set(rules, new Map([...fields].map(([name, field]) => [name, field.key])));
  for (const [name, { key, value }] of fields) {
    const at = `${field}.${name}`;
    if (isScalar(value) && value.value === false) rules[name as RuleName] = false;
    else if (name === 'alpha') {
      const text = isScalar(value) ? value.value : undefined;
      if (text === 'required' || text === 'forbidden') rules.alpha = text;
      else walker.issue(value ?? key, at, 'must be required (some transparency), forbidden (none) or false');
    } else {
      const limits = readLimits(walker, { key, value }, at, name as keyof typeof RANGES);
      if (limits) (rules as Record<string, unknown>)[name] = limits;
    }
  }
  // The rules read, even beside a problem: the asset is refused anyway, and its other rules are still checked against it.
  return rules;
}

/** `{min, max}` (fill) or `{max}` (the others), each within the figure's range. */
function readLimits(walker: Walker, entry: Entry, field: string, name: keyof typeof RANGES): { min?: number; max?: number } | undefined {
  const range = RANGES[name];
  const allowed = name === 'fill' ? ['min', 'max'] : ['max'];
  const shape = `must be a mapping: ${allowed.map((bound) => `${bound}: <${range.unit}>`).join(', ')} (or false)`;
  if (!isMap(entry.value)) return void walker.issue(entry.value ?? entry.key, field, shape);
  const before = walker.issues.length;
  const bounds = walker.fields(entry.value, field, allowed);
  const limits: { min?: number; max?: number } = {};
  for (const [bound, { key, value }] of bounds) {
    const number = isScalar(value) ? value.value : undefined;
    const fits =
      typeof number === 'number' &&
      Number.isFinite(number) &&
      number >= range.low &&
      number <= range.high &&
      (!range.whole || Number.isInteger(number));
    if (fits) limits[bound as 'min' | 'max'] = number;
    else walker.issue(value ?? key, `${field}.${bound}`, `must be ${range.unit}, not ${JSON.stringify(number ?? null)}`);
  }
  if (walker.issues.length > before) return undefined;
  if (!bounds.size) return void walker.issue(entry.value, field, shape);
  if (limits.min !== undefined && limits.max !== undefined && limits.min > limits.max)
    return void walker.issue(entry.value, field, `min (${limits.min}) is above max (${limits.max})`);
  return limits;
}

/** `tile: true|false`; undefined when absent or after reporting a problem. */
function readTile(walker: Walker, entry: Entry | undefined, field: string): boolean | undefined {
  if (!entry) return undefined;
  const value = isScalar(entry.value) ? entry.value.value : undefined;
  if (typeof value === 'boolean') return value;
  walker.issue(entry.value ?? entry.key, field, 'must be true (the image repeats edge to edge: check measures its seam) or false');
  return undefined;
}

/**
 * An asset's `tile` and rules: its own over defaults.checks (images and workflows only), rule by
 * rule, with those set to `false` left out (no `checks` for none). Reports a `checks` or a `tile` on
 * an asset whose outputs are no images, and a seam rule of its own on an asset that is not a tile.
 */
export function assetChecks(
  walker: Walker,
  asset: { entries: ReadonlyMap<string, Entry>; node: Node_; field: string; kind?: AssetKind },
  defaults: WrittenChecks | undefined,
): { tile?: true; checks?: CheckRules } {
  const { entries, field, kind } = asset;
  const tile = readTile(walker, entries.get('tile'), `${field}.tile`);
  const entry = entries.get('checks');
  for (const name of ['tile', 'checks'])
    if (entries.has(name) && kind && !CHECKED_KINDS.includes(kind))
      walker.issue(entries.get(name)!.key, `${field}.${name}`, `does not apply to a ${kind} asset: check measures images`);
  if (kind && !CHECKED_KINDS.includes(kind)) return {};
  const own = readChecks(walker, entry, `${field}.checks`);
  if (own?.seam && !tile)
    walker.issue(
      RULE_KEYS.get(own)?.get('seam') ?? entry!.key,
      `${field}.checks.seam`,
      'a seam is measured on tiles only: add tile: true to this asset',
    );
  const merged: WrittenChecks = { ...(kind && DEFAULTED_KINDS.includes(kind) ? defaults : {}), ...own };
  const rules: CheckRules = {};
  for (const name of CHECK_RULES) {
    const rule = merged[name];
    if (rule) (rules as Record<string, unknown>)[name] = rule;
  }
  return { ...(tile ? { tile: true as const } : {}), ...(Object.keys(rules).length ? { checks: rules } : {}) };
}
