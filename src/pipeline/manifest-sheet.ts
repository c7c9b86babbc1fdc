// The manifest's `sheet:` assets (docs/build.md "Sheets"): read from the YAML tree with each problem
// at the line and column of the value it names, then checked against the other assets (unknown
// ids, a sheet in a sheet, a video as a frame, a glob that matches nothing). Loads no image library.
import path from 'node:path';
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { atlasOptionProblem } from '../imaging/limits.js';
import type { ManifestAsset, OutputTarget, SheetSpec } from './records.js';
import type { PostReader } from './manifest-post.js';
import { SHEET_INPUT_KINDS, sheetInputs } from './sheet.js';

const SHEET_FIELDS = ['from', 'padding', 'extrude', 'maxSize', 'trim'];
/** Where each `from` item was written, for the checks made once every asset is read. */
const FROM_NODES = new WeakMap<SheetSpec, { node: Node; field: string }[]>();

/** The sheet's options, or undefined after reporting its problems. */
export function readSheet(reader: PostReader, entry: { key: Node; value: Node | null }, field: string): SheetSpec | undefined {
  const node = reader.resolve(entry.value);
  if (!isMap(node)) return void reader.issue(node ?? entry.key, field, 'must be a mapping (from, padding, extrude, maxSize, trim)');
  let ok = true;
  const fail = (at: Node | null, name: string, message: string): void => {
    ok = false;
    reader.issue(at, name, message);
  };
  const sheet: SheetSpec = { from: [] };
  const nodes: { node: Node; field: string }[] = [];
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
  return sheet;
}

/** A sheet's `out` must be a .png file of its own (its data file goes beside it): defaults.out does not do. */
export function checkSheetOut(
  reader: PostReader,
  asset: { entries: ReadonlyMap<string, { key: Node; value: Node | null }>; node: Node; field: string; out?: OutputTarget },
): void {
  const { entries, node, field, out } = asset;
  if (!entries.has('out')) reader.issue(node, `${field}.out`, 'missing: a sheet needs out: a .png file (its .json goes beside it)');
  else if (out && (out.type !== 'file' || path.posix.extname(out.path).toLowerCase() !== '.png'))
    reader.issue(
      entries.get('out')!.value,
      `${field}.out`,
      'a sheet is written as a .png file (its .json beside it): give a path ending in .png',
    );
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
          !/[*?]/.test(selector) ? `unknown asset id "${selector}"` : `"${selector}" matches no image or workflow asset`,
        );
    }
  }
}
