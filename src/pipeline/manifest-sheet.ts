// The manifest's `sheet:` assets (docs/build.md "Sheets"): read from the YAML tree with each problem
// at the line and column of the value it names, then checked against the other assets (unknown
// ids, a sheet in a sheet, a video as a frame, a glob that matches nothing, a frame's name where an
// asset's goes, another output named as one of its pages). Loads no image library.
import path from 'node:path';
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { ATLAS_LIMITS, atlasOptionProblem, SLICE_LIMITS } from '../imaging/limits.js';
import type { ManifestAsset, OutputTarget, SheetSpec } from './records.js';
import { outputStem, stemOf } from './paths.js';
import type { PostReader } from './manifest-post.js';
import { SHEET_INPUT_KINDS, sheetInputs } from './sheet.js';
import { globToRegExp } from './shard.js';
import { listIds } from './id-list.js';

const SHEET_FIELDS = ['from', 'padding', 'extrude', 'maxSize', 'trim', 'animations'];
/** Where each `from` item was written, for the checks made once every asset is read. */
const FROM_NODES = new WeakMap<SheetSpec, { node: Node; field: string }[]>();
/** Where each `animations` selector was written, likewise. */
const ANIMATION_NODES = new WeakMap<SheetSpec, { node: Node; field: string; selector: string }[]>();
/** Where each sheet's `out` was written, likewise. */
const OUT_NODES = new WeakMap<SheetSpec, { node: Node; field: string }>();
/** Each sheet's inputs, as checkSheets found them (for checkSheetPages, after it). */
const INPUTS = new WeakMap<SheetSpec, string[]>();

/** The sheet's options, or undefined after reporting its problems. */
export function readSheet(reader: PostReader, entry: { key: Node; value: Node | null }, field: string): SheetSpec | undefined {
  const node = reader.resolve(entry.value);
  if (!isMap(node)) return void reader.issue(node ?? entry.key, field, `must be a mapping (${SHEET_FIELDS.join(', ')})`);
  let ok = true;
  const fail = (at: Node | null, name: string, message: string): void => {
    ok = false;
    reader.issue(at, name, message);
  };
  const sheet: SheetSpec = { from: [] };
  const nodes: { node: Node; field: string }[] = [];
  const animationNodes: { node: Node; field: string; selector: string }[] = [];
  for (const pair of node.items) {
    const key = reader.resolve(pair.key as Node);
    const name = isScalar(key) ? String(key.value) : '';
    const value = reader.resolve(pair.value as Node);
    const at = `${field}.${name}`;
    const number = isScalar(value) ? value.value : undefined;
    if (!SHEET_FIELDS.includes(name)) fail(key ?? node, at, `unknown field (expected one of: ${SHEET_FIELDS.join(', ')})`);
    else if (name === 'from') {
      const items = isSeq(value) ? value.items.map((item) => reader.resolve(item as Node)) : [value];
      items.forEach((item, index) => {
        const text = isScalar(item) && typeof item.value === 'string' ? item.value.trim() : '';
        if (!text) return fail(item ?? key, `${at}[${index}]`, 'must be an asset id or a glob over ids');
        sheet.from.push(text);
        nodes.push({ node: item!, field: `${at}[${index}]` });
      });
      if (!items.length) fail(value ?? key, at, 'is empty: name the assets to pack');
    } else if (name === 'animations') {
      const read = readAnimations(reader, value ?? key, at, fail);
      if (read) {
        sheet.animations = read.animations;
        animationNodes.push(...read.nodes);
      }
    } else if (name === 'trim') {
      if (typeof number !== 'boolean') fail(value ?? key, at, 'must be true or false');
      else sheet.trim = number;
    } else {
      const option = name as 'padding' | 'extrude' | 'maxSize';
      const problem = atlasOptionProblem(option, number);
      if (problem) fail(value ?? key, at, problem);
      else sheet[option] = number as number;
    }
  }
  if (!node.items.some((pair) => isScalar(pair.key) && pair.key.value === 'from'))
    fail(node, `${field}.from`, 'missing: list the assets to pack (ids or globs)');
  if (!ok) return undefined;
  FROM_NODES.set(sheet, nodes);
  ANIMATION_NODES.set(sheet, animationNodes);
  return sheet;
}

/** `animations: {walk: "hero-walk-*", attack: [hero-attack-1, hero-attack-2]}`: names to frame names or globs. */
function readAnimations(
  reader: PostReader,
  node: Node | null,
  field: string,
  fail: (at: Node | null, name: string, message: string) => void,
): { animations: Record<string, string | string[]>; nodes: { node: Node; field: string; selector: string }[] } | undefined {
  const expected = 'a mapping of animation names to frame names or globs (e.g. walk: "hero-walk-*")';
  if (!isMap(node) || !node.items.length) return void fail(node, field, `must be ${expected}`);
  const animations: Record<string, string | string[]> = {};
  const nodes: { node: Node; field: string; selector: string }[] = [];
  for (const pair of node.items) {
    const key = reader.resolve(pair.key as Node);
    const name = isScalar(key) ? String(key.value) : '';
    const at = `${field}.${name}`;
    if (!name || name.length > ATLAS_LIMITS.maxNameLength) {
      fail(key ?? node, at, `an animation's name must be 1 to ${ATLAS_LIMITS.maxNameLength} characters`);
      continue;
    }
    const value = reader.resolve(pair.value as Node);
    const items = isSeq(value) ? value.items.map((item) => reader.resolve(item as Node)) : [value];
    const selectors: string[] = [];
    items.forEach((item, index) => {
      const text = isScalar(item) && typeof item.value === 'string' ? item.value.trim() : '';
      const where = isSeq(value) ? `${at}[${index}]` : at;
      if (!text) return fail(item ?? key, where, 'must be a frame name or a glob over frame names');
      selectors.push(text);
      nodes.push({ node: item!, field: where, selector: text });
    });
    if (!items.length) fail(value ?? key, at, 'is empty: name its frames');
    Object.defineProperty(animations, name, {
      value: isSeq(value) ? selectors : selectors[0],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { animations, nodes };
}

/** A sheet's `out` must be a .png file of its own (its data file goes beside it): defaults.out does not do. */
export function checkSheetOut(
  reader: PostReader,
  asset: {
    entries: ReadonlyMap<string, { key: Node; value: Node | null }>;
    node: Node;
    field: string;
    out?: OutputTarget;
    sheet?: SheetSpec;
  },
): void {
  const { entries, node, field, out, sheet } = asset;
  if (!entries.has('out')) reader.issue(node, `${field}.out`, 'missing: a sheet needs out: a .png file (its .json goes beside it)');
  else if (out && (out.type !== 'file' || path.posix.extname(out.path).toLowerCase() !== '.png'))
    reader.issue(
      entries.get('out')!.value,
      `${field}.out`,
      'a sheet is written as a .png file (its .json beside it): give a path ending in .png',
    );
  else if (sheet) OUT_NODES.set(sheet, { node: entries.get('out')!.value ?? node, field: `${field}.out` });
}

/** Checks every sheet's `from` against the manifest's assets; reports at the item that is wrong. */
export function checkSheets(reader: PostReader, assets: readonly ManifestAsset[]): void {
  const byId = new Map(assets.map((asset) => [asset.id, asset]));
  for (const asset of assets) {
    if (!asset.sheet) continue;
    for (const { node, field } of FROM_NODES.get(asset.sheet) ?? []) {
      const selector = isScalar(node) ? String(node.value).trim() : '';
      const named = byId.get(selector);
      if (named === asset) reader.issue(node, field, 'a sheet cannot include itself');
      else if (named?.kind === 'sheet')
        reader.issue(node, field, `"${selector}" is a sheet: a sheet packs image and workflow assets, not sheets`);
      else if (named && !(SHEET_INPUT_KINDS as readonly string[]).includes(named.kind))
        reader.issue(node, field, `"${selector}" is a ${named.kind}, not an image: a sheet packs image and workflow assets`);
      else if (!named && !sheetInputs([selector], assets).length)
        reader.issue(
          node,
          field,
          `${!/[*?]/.test(selector) ? `unknown asset id "${selector}"` : `"${selector}" matches no image or workflow asset`}${framesNote(selector, assets, byId)}`,
        );
    }
    const inputs = sheetInputs(asset.sheet.from, assets);
    INPUTS.set(asset.sheet, inputs);
    checkAnimations(reader, asset.sheet, inputs, byId);
  }
}

/**
 * Each animation selector must be able to name a frame of the sheet: an input's id (one file), or
 * `<id>-<n>` of an input with several (a slice's frames, up to its count when known; a workflow's).
 * Which frames a `gaps` slice finds is known only once it runs: the pack checks those again.
 */
function checkAnimations(reader: PostReader, sheet: SheetSpec, inputs: readonly string[], byId: ReadonlyMap<string, ManifestAsset>): void {
  const names = inputs.flatMap((id) => possibleFrameNames(byId.get(id)!));
  for (const { node, field, selector } of ANIMATION_NODES.get(sheet) ?? []) {
    const pattern = /[*?]/.test(selector) ? globToRegExp(selector) : undefined;
    if (pattern ? names.some((name) => pattern.test(name)) : names.includes(selector)) continue;
    reader.issue(node, field, `"${selector}" names no frame of this sheet (its frames are named after ${listIds(inputs)})`);
  }
}

/**
 * A `from` item that names no asset but frames of some (`hero-2`, `"hero-*"`: a slice's frames, or
 * a workflow's files): which assets, and how to pack them (a sheet takes whole assets; `animations`
 * chooses frames). Empty when it names no frame either.
 */
function framesNote(selector: string, assets: readonly ManifestAsset[], byId: ReadonlyMap<string, ManifestAsset>): string {
  const glob = /[*?]/.test(selector);
  const pattern = glob ? globToRegExp(selector) : undefined;
  // An exact name: `<id>-<n>`, the id the longest prefix (ids may hold `-`).
  const frame = /^(.+)-[1-9][0-9]*$/.exec(selector);
  const named = frame ? byId.get(frame[1]) : undefined;
  const candidates = pattern ? assets : named ? [named] : [];
  const owners = candidates
    .filter((asset) => hasFrames(asset) && possibleFrameNames(asset).some((name) => (pattern ? pattern.test(name) : name === selector)))
    .map((asset) => asset.id);
  if (!owners.length) return '';
  const which = `${glob ? 'these are frames' : 'it is a frame'} of ${listIds(owners, (id) => `"${id}"`)}`;
  // Quoted as YAML needs a glob to be (a leading `*` is an alias).
  const example = glob || /[\s:#,[\]{}"']/.test(selector) ? JSON.stringify(selector) : selector;
  return `: ${which}; use \`from: [${listIds(owners)}]\` and choose frames with \`animations:\` (e.g. \`animations: { <name>: ${example} }\`)`;
}

/** Whether an input gives a sheet frames named `<id>-<n>`: a slice's, or a workflow's several files. */
const hasFrames = (asset: ManifestAsset): boolean => asset.kind === 'workflow' || !!asset.post?.some((step) => step.kind === 'slice');

/**
 * A sheet that needs several pages writes `<stem>-<k>.png` and `<stem>-<k>.json` for each page k
 * from 0 (docs/imaging.md "Pages"), and it has at most one page per frame. Those names are the
 * sheet's own, as a slice's frames are its asset's: another asset whose output has one of them (an
 * image `icons-0` beside a sheet `icons` of two frames or more), or a workflow whose files may
 * (`<stem>-<node>`), is an issue at the sheet's `out`, naming both, before anything is paid.
 */
export function checkSheetPages(reader: PostReader, assets: readonly ManifestAsset[]): void {
  const byId = new Map(assets.map((asset) => [asset.id, asset]));
  const sheets = new Map<string, PagedSheet>();
  for (const asset of assets) {
    if (!asset.sheet || asset.out.type !== 'file') continue;
    const inputs = INPUTS.get(asset.sheet) ?? sheetInputs(asset.sheet.from, assets);
    const frames = inputs.reduce((sum, id) => sum + mostFrames(byId.get(id)!), 0);
    const pages = Math.min(frames, ATLAS_LIMITS.maxFrames);
    if (pages > 1) sheets.set(stemOf(asset.out.path), { asset, png: asset.out.path, pages, clashes: [] });
  }
  if (!sheets.size) return;
  for (const other of assets) pageClash(other, sheets);
  for (const sheet of sheets.values()) {
    if (!sheet.clashes.length) continue;
    const at = OUT_NODES.get(sheet.asset.sheet!);
    reader.issue(at?.node, at?.field ?? 'out', pagesIssue(sheet));
  }
}

/** A sheet that may need several pages: its atlas's path, how many pages it may have, and the other outputs named as one. */
interface PagedSheet {
  asset: ManifestAsset;
  png: string;
  pages: number;
  clashes: { id: string; writes: string }[];
}

/** `"fx-0" writes assets/fx-0.*, a name this sheet's pages take: …; rename one of "fx" and "fx-0" (an id or an out)`. */
function pagesIssue({ asset, png, pages, clashes }: PagedSheet): string {
  const base = png.slice(0, png.length - path.posix.extname(png).length);
  const names = `${base}-0.png ${pages === 2 ? 'and' : 'to'} ${base}-${pages - 1}.png, each with its .json`;
  const who = listIds(
    clashes.map(({ id, writes }) => `"${id}" writes ${writes}`),
    undefined,
    5,
  );
  const ids = listIds(
    clashes.map(({ id }) => `"${id}"`),
    undefined,
    5,
  );
  const rename = clashes.length === 1 ? `rename one of "${asset.id}" and ${ids}` : `rename "${asset.id}", or each of ${ids}`;
  return `${who}, ${clashes.length === 1 ? 'a name' : 'names'} this sheet's pages take: when its frames need several pages (up to ${pages}: one per frame at most), it writes ${names}; ${rename} (an id or an out)`;
}

/** Notes `asset` on the sheet one of whose page names its output has (or, a workflow's files, may have), with that output as a reader sees it. */
function pageClash(asset: ManifestAsset, sheets: ReadonlyMap<string, PagedSheet>): void {
  if (asset.kind === 'workflow' && asset.out.type === 'folder') {
    // Its files are `<dir>/<id>-<node>.<ext>`: node ids are the service's, often numbers.
    const sheet = sheets.get(outputStem(asset.out, asset.id));
    sheet?.clashes.push({ id: asset.id, writes: `${path.posix.join(asset.out.dir, asset.id)}-<node>.*` });
    return;
  }
  const page = /^(.+)-(0|[1-9][0-9]*)$/.exec(outputStem(asset.out, asset.id));
  const sheet = page ? sheets.get(page[1]) : undefined;
  if (!sheet || sheet.asset === asset || Number(page![2]) >= sheet.pages) return;
  sheet.clashes.push({
    id: asset.id,
    writes: asset.out.type === 'file' ? asset.out.path : `${path.posix.join(asset.out.dir, asset.id)}.*`,
  });
}

/** The most frames an input can give a sheet, as far as the manifest says (a workflow's files: not known, so the packer's limit). */
function mostFrames(asset: ManifestAsset): number {
  const slice = asset.post?.find((step) => step.kind === 'slice');
  if (slice?.kind === 'slice') return slice.count ?? (slice.by === 'grid' ? slice.columns * slice.rows : SLICE_LIMITS.maxFrames);
  return asset.kind === 'workflow' ? ATLAS_LIMITS.maxFrames : 1;
}

/** The frame names an input can give a sheet, as far as the manifest says. */
function possibleFrameNames(asset: ManifestAsset): string[] {
  const slice = asset.post?.find((step) => step.kind === 'slice');
  const numbered = (count: number) => Array.from({ length: count }, (_, index) => `${asset.id}-${index + 1}`);
  if (slice?.kind === 'slice') return numbered(slice.count ?? (slice.by === 'grid' ? slice.columns * slice.rows : SLICE_LIMITS.maxFrames));
  if (asset.kind === 'workflow') return [asset.id, ...numbered(SLICE_LIMITS.maxFrames)];
  return [asset.id];
}
