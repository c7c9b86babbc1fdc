// Checks manifest text against the manifest's rules, walking the YAML syntax tree so that each
// problem carries the line and column of the field it concerns. Rules are kept in step with
// schema/assetgen.schema.json (test/project/schema.test.ts runs both over the same files).
import path from 'node:path';
import { MAX_TAKES } from '../api/takes.cjs';
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { ManifestIssue } from './errors.js';
import type { AssetKind, DeclaredPrices, ManifestAsset, OutputTarget, SidecarPlace } from './records.js';
import { PROVENANCE_DIR } from './sidecar-place.js';
import { SAFE_ID } from '../api/endpoints.js';
import { AliasLimitError, MANIFEST_LIMITS, offsetPastNodeLimit, positionIn, tooManyNodes } from './manifest-limits.js';
import { readPlainManifest } from './manifest-reader.js';
import { Walker, type Entry, type Node_ } from './manifest-walker.js';
import { assetPost, readPost, type PostStep } from './manifest-post.js';
import { checkSheetOut, checkSheetPages, checkSheets, readSheet } from './manifest-sheet.js';
import { assetChecks, readChecks, type WrittenChecks } from './manifest-checks.js';
import { isProjectPath, outputStem, parseOut } from './paths.js';
import { expandTemplates, type ExpandedAssets } from './templates.js';
import { COMMAND_LINE_BUDGET_IS } from '../api/left-alone.js';

export const ASSET_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
const ASPECT_RATIO = /^[1-9][0-9]*:[1-9][0-9]*$/;

const TOP_FIELDS = ['$schema', 'budget', 'prices', 'provenance', 'vars', 'defaults', 'assets'];
/** The sections of `prices`: what each names, by kind of paid call. */
const PRICE_SECTIONS = ['agents', 'workflows'] as const;
const DEFAULT_FIELDS = ['agent', 'out', 'style', 'post', 'variants', 'checks'];
const ASSET_FIELDS = 'id prompt workflow video agent set out duration aspectRatio style matrix post variants sheet tile checks'.split(' ');
/** The field that makes an asset of each kind. */
const KIND_FIELDS = { prompt: 'image', workflow: 'workflow', video: 'video', sheet: 'sheet' } as const;
const KIND_NAMES = Object.keys(KIND_FIELDS) as (keyof typeof KIND_FIELDS)[];
/** Fields that only some kinds take. */
const ONLY_FOR: [string, AssetKind[]][] = Object.entries({
  agent: ['image', 'video'],
  set: ['workflow'],
  duration: ['video'],
  aspectRatio: ['video'],
  post: ['image'],
  variants: ['image'],
} satisfies Record<string, AssetKind[]>);

/** What a manifest's text gives when valid (the assets are empty when there are issues). */
export interface ValidatedManifest {
  assets: ManifestAsset[];
  budget?: number;
  prices?: DeclaredPrices;
  provenance?: SidecarPlace;
  issues: ManifestIssue[];
}

/** The reader's words for what an issue tells them (the front end's: ctx.frontEnd); the command line's by default. */
export interface ValidateOptions {
  /** What the manifest's `budget` is (FrontEnd.budgetIs): `the default --max-credits` by default. */
  budgetIs?: string;
}

/**
 * Validates manifest text; returns the assets when there are no issues. (An output can never be the
 * manifest or the lock: neither has a media extension.)
 */
export function validateManifest(text: string, options: ValidateOptions = {}): ValidatedManifest {
  // Plain manifests are read fast; any problem is then found again through yaml, which alone
  // reports it (the same issues, at the same file:line:col, as when yaml read every manifest).
  const plain = readPlainManifest(text);
  if (plain && plain.nodes <= MANIFEST_LIMITS.nodes) {
    const result = validateTree(new Walker(plain.contents, plain.lines), options);
    if (!result.issues.length) return result;
  }
  return validateWithYaml(text, options);
}

/** The same, reading the text with yaml's document model alone (any YAML, every error positioned). */
export function validateWithYaml(text: string, options: ValidateOptions = {}): ValidatedManifest {
  const past = offsetPastNodeLimit(text);
  if (past !== undefined) return { assets: [], issues: [{ ...positionIn(text, past), field: '', message: tooManyNodes('has') }] };
  const walker = Walker.ofYaml(text);
  try {
    return validateTree(walker, options);
  } catch (error) {
    if (!(error instanceof AliasLimitError)) throw error;
    walker.issue(error.alias, '', tooManyNodes('expands through its aliases to'));
    return { assets: [], issues: walker.issues };
  }
}

function validateTree(walker: Walker, options: ValidateOptions): ValidatedManifest {
  if (walker.issues.length) return { assets: [], issues: walker.issues };
  const top = walker.resolve(walker.contents);
  if (!isMap(top)) {
    walker.issue(top, '', 'the manifest must be a mapping with an `assets` list');
    return { assets: [], issues: walker.issues };
  }
  const fields = walker.fields(top, '', TOP_FIELDS);
  const templates = expandTemplates(walker, fields); // vars, style, matrix: the assets as built
  const { budget, provenance } = readSettings(walker, fields, options.budgetIs ?? COMMAND_LINE_BUDGET_IS);
  const prices = readPrices(walker, fields.get('prices'));
  const defaults = readDefaults(walker, fields.get('defaults'));
  const assetsEntry = fields.get('assets');
  if (!assetsEntry) walker.issue(top, 'assets', 'missing: list the assets to make');
  else if (!isSeq(assetsEntry.value)) walker.issue(assetsEntry.value ?? assetsEntry.key, 'assets', 'must be a list');
  const assets = readAssets(walker, templates, defaults);
  if (!walker.issues.length) checkSheets(walker, assets);
  // A sheet's page names are its own, as a slice's frame names are (checked once its inputs are known).
  if (!walker.issues.length) checkSheetPages(walker, assets);
  const issues = walker.issues.sort((a, b) => a.line - b.line || a.col - b.col);
  return {
    assets: issues.length ? [] : assets,
    ...(budget !== undefined ? { budget } : {}),
    ...(prices ? { prices } : {}),
    ...(provenance ? { provenance } : {}),
    issues,
  };
}

/**
 * `prices`: what one paid call of each agent (an image, a take) or workflow (a run's submission)
 * costs, as the account page or an invoice says; a build's estimates and cap use them until the
 * service's own answers say otherwise (docs/build.md, "Credits").
 */
function readPrices(walker: Walker, entry: Entry | undefined): DeclaredPrices | undefined {
  if (!entry) return undefined;
  const shape = 'must be a mapping: `agents` and `workflows`, each a mapping of id to credits per call';
  if (!isMap(entry.value)) return void walker.issue(entry.value ?? entry.key, 'prices', shape);
  const sections = walker.fields(entry.value, 'prices', [...PRICE_SECTIONS]);
  // No prototype: an id is only ever a key (`__proto__` is a valid id, and must stay one).
  const prices: DeclaredPrices = {
    agents: Object.create(null) as Record<string, number>,
    workflows: Object.create(null) as Record<string, number>,
  };
  for (const section of PRICE_SECTIONS) {
    const given = sections.get(section);
    if (!given) continue;
    const field = `prices.${section}`;
    if (!isMap(given.value)) {
      walker.issue(
        given.value ?? given.key,
        field,
        `must be a mapping of ${section === 'agents' ? 'agent' : 'workflow'} id to credits per call`,
      );
      continue;
    }
    for (const pair of given.value.items) {
      const key = walker.resolve(pair.key as Node_);
      const id = isScalar(key) ? key.value : undefined;
      if (typeof id !== 'string' || !SAFE_ID.test(id)) {
        walker.issue(key ?? given.value, field, `${JSON.stringify(id ?? null)} is not an id (letters, digits, _ . : -)`);
        continue;
      }
      const valueNode = walker.resolve(pair.value as Node_);
      const credits = isScalar(valueNode) ? valueNode.value : undefined;
      if (typeof credits === 'number' && Number.isSafeInteger(credits) && credits >= 0) prices[section][id] = credits;
      else
        walker.issue(
          valueNode ?? key,
          `${field}.${id}`,
          `must be a whole number of credits ≥ 0 (what one call costs), not ${JSON.stringify(credits ?? null)}`,
        );
    }
  }
  return prices;
}

/**
 * The manifest's own settings: `budget` (the build's default --max-credits) and `provenance`.
 * `budgetIs`: what a budget is, in the reader's words (ValidateOptions.budgetIs).
 */
function readSettings(walker: Walker, fields: Map<string, Entry>, budgetIs: string): Pick<ValidatedManifest, 'budget' | 'provenance'> {
  // budget: the build's default --max-credits (a whole number of credits).
  const budgetEntry = fields.get('budget');
  const budgetValue = isScalar(budgetEntry?.value) ? budgetEntry.value.value : undefined;
  const budget = typeof budgetValue === 'number' && Number.isSafeInteger(budgetValue) && budgetValue >= 0 ? budgetValue : undefined;
  if (budgetEntry && budget === undefined)
    walker.issue(budgetEntry.value ?? budgetEntry.key, 'budget', `must be a whole number of credits ≥ 0 (${budgetIs})`);
  return { budget, provenance: readProvenance(walker, fields.get('provenance')) };
}

const PROVENANCE_SHAPE = 'must be `sidecar` (in .assetgen/provenance/), or `{ sidecars: folder, dir: <folder> }` or `{ sidecars: beside }`';

/**
 * `provenance`: where each output's `<file>.assetgen.json` goes. `sidecar` (the first form, kept)
 * and `sidecars: folder` mirror the outputs under a folder of their own, .assetgen/provenance/ unless
 * `dir` names another, which never ships with the game; `sidecars: beside` puts each beside its output.
 */
function readProvenance(walker: Walker, entry: Entry | undefined): SidecarPlace | undefined {
  if (!entry) return undefined;
  const value = walker.resolve(entry.value);
  if (isScalar(value) && value.value === 'sidecar') return { sidecars: 'folder', dir: PROVENANCE_DIR };
  if (!isMap(value)) return void walker.issue(value ?? entry.key, 'provenance', PROVENANCE_SHAPE);
  const fields = walker.fields(value, 'provenance', ['sidecars', 'dir']);
  const sidecarsEntry = fields.get('sidecars');
  const sidecars = walker.string(sidecarsEntry, 'provenance.sidecars');
  const dirEntry = fields.get('dir');
  const dir = walker.string(dirEntry, 'provenance.dir');
  // A field that is not a string was reported by walker.string already.
  if ((sidecarsEntry && sidecars === undefined) || (dirEntry && dir === undefined)) return undefined;
  if (sidecars === 'beside') {
    if (dirEntry) return void walker.issue(dirEntry.key, 'provenance.dir', 'goes with `sidecars: folder` only');
    return { sidecars: 'beside' };
  }
  if (sidecars !== 'folder')
    return void walker.issue(
      sidecarsEntry?.value ?? value,
      'provenance.sidecars',
      sidecarsEntry ? 'must be `folder` or `beside`' : 'missing: `folder` (a folder of their own) or `beside` (beside each output)',
    );
  if (dir === undefined) return { sidecars: 'folder', dir: PROVENANCE_DIR };
  const folder = path.posix.normalize(dir.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (folder === '.' || !isProjectPath(folder))
    return void walker.issue(
      dirEntry!.value,
      'provenance.dir',
      `${JSON.stringify(dir)} must be a folder inside the project other than its root (relative to the manifest)`,
    );
  return { sidecars: 'folder', dir: folder };
}

/** What `defaults` gives every asset that does not say otherwise. */
interface AssetDefaults {
  defaultAgent?: string;
  defaultOut: OutputTarget;
  defaultPost?: PostStep[];
  /** defaults.variants: the takes of image assets that give no `variants` of their own. */
  defaultVariants?: number;
  /** defaults.checks: the rules of image and workflow assets, under their own rule by rule. */
  defaultChecks?: WrittenChecks;
}

function readDefaults(walker: Walker, defaults: Entry | undefined): AssetDefaults {
  const read: AssetDefaults = { defaultOut: { type: 'folder', dir: '.' } };
  if (!defaults?.value || !isMap(defaults.value)) {
    if (defaults) walker.issue(defaults.value ?? defaults.key, 'defaults', 'must be a mapping (agent, out)');
    return read;
  }
  const entries = walker.fields(defaults.value, 'defaults', DEFAULT_FIELDS);
  read.defaultAgent = walker.string(entries.get('agent'), 'defaults.agent');
  read.defaultPost = readPost(walker, entries.get('post'), 'defaults.post');
  read.defaultVariants = readVariants(walker, entries.get('variants'), 'defaults.variants');
  read.defaultChecks = readChecks(walker, entries.get('checks'), 'defaults.checks');
  const out = walker.string(entries.get('out'), 'defaults.out');
  if (out !== undefined) {
    // defaults.out is always a folder: the trailing slash is optional there.
    const target = outputTarget(walker, entries.get('out')!.value, 'defaults.out', out.replace(/[\\/]*$/, '/'), undefined);
    if (target) read.defaultOut = target;
  }
  return read;
}

/** The expanded asset entries read in order; ids and output stems checked against each other. */
function readAssets(walker: Walker, templates: ExpandedAssets, defaults: AssetDefaults): ManifestAsset[] {
  const assets: ManifestAsset[] = [];
  // Ids and output stems compare without case: they name files, and some disks ignore case.
  const ids = new Map<string, number>();
  const stems = new Map<string, string>();
  templates.items.forEach((item, index) => {
    const node = walker.resolve(item as Node_);
    const field = templates.fieldOf(index);
    if (!isMap(node)) return walker.issue(node, field, 'must be a mapping (id, prompt, out, …)');
    // Duplicates are checked on the raw id, so they are reported even when the entry has other issues.
    const idNode = walker.resolve(node.items.find((pair) => isScalar(pair.key) && pair.key.value === 'id')?.value as Node_);
    const rawId = isScalar(idNode) && typeof idNode.value === 'string' ? idNode.value : undefined;
    const first = rawId === undefined ? undefined : ids.get(rawId.toLowerCase());
    if (first !== undefined)
      walker.issue(idNode, `${field}.id`, `duplicate id "${rawId}" (also ${templates.fieldOf(first)}; case does not count)`);
    else if (rawId !== undefined) ids.set(rawId.toLowerCase(), index);
    const asset = readAsset(walker, node, field, defaults);
    if (!asset) return;
    const matrix = templates.matrixOf(index);
    if (matrix !== undefined) asset.matrix = matrix;
    // A workflow's files carry node suffixes; an image or a video is one file with this stem.
    if (asset.kind !== 'workflow' && first === undefined) {
      const stem = outputStem(asset.out, asset.id);
      const other = stems.get(stem);
      const shown = asset.out.type === 'file' ? asset.out.path : `${stem}.*`;
      if (other) walker.issue(node, `${field}.out`, `${shown} is also the output of "${other}"`);
      stems.set(stem, asset.id);
    }
    assets.push(asset);
  });
  return assets;
}

function readAsset(walker: Walker, node: Node, field: string, options: AssetDefaults): ManifestAsset | undefined {
  const before = walker.issues.length;
  const entries = walker.fields(node, field, ASSET_FIELDS);
  const id = walker.string(entries.get('id'), `${field}.id`);
  if (!entries.has('id')) walker.issue(node, `${field}.id`, 'missing: every asset needs a unique id');
  else if (id !== undefined && (!ASSET_ID.test(id) || WINDOWS_RESERVED.test(id)))
    walker.issue(
      entries.get('id')!.value,
      `${field}.id`,
      `"${id}" is not a usable id: letters, digits, . _ - (up to 100), not a reserved file name`,
    );

  const given = KIND_NAMES.filter((name) => entries.has(name));
  if (given.length === 0) walker.issue(node, `${field}.prompt`, 'missing prompt: give one of prompt (image), workflow, video or sheet');
  if (given.length > 1)
    walker.issue(
      entries.get(given[1])!.key,
      `${field}.${given[1]}`,
      `an asset is one of prompt, workflow, video or sheet: ${given.join(' and ')} are both given`,
    );
  const kindField = given[0];
  const kind: AssetKind | undefined = kindField && KIND_FIELDS[kindField];
  const sheet = kind === 'sheet' ? readSheet(walker, entries.get('sheet')!, `${field}.sheet`) : undefined;
  const text =
    kind === 'sheet' ? sheet && kindField : kindField ? walker.string(entries.get(kindField), `${field}.${kindField}`) : undefined;

  for (const [name, kinds] of ONLY_FOR) {
    if (kind && entries.has(name) && !kinds.includes(kind))
      walker.issue(
        entries.get(name)!.key,
        `${field}.${name}`,
        `does not apply to ${kind === 'image' ? 'an image' : `a ${kind}`} asset${name === 'variants' ? VARIANTS_ONLY_IMAGES[kind] : ''}`,
      );
  }
  let agent = walker.string(entries.get('agent'), `${field}.agent`);
  // defaults.agent is an image agent: a video without one is left to the service's default.
  if (kind === 'image') agent ??= options.defaultAgent;
  if (kind === 'image' && !agent && !entries.has('agent'))
    walker.issue(node, `${field}.agent`, 'missing: set agent here or defaults.agent');

  const set = readSet(walker, entries.get('set'), `${field}.set`);
  const duration = entries.get('duration');
  const seconds = isScalar(duration?.value) ? duration.value.value : undefined;
  if (duration && !(typeof seconds === 'number' && seconds > 0 && Number.isFinite(seconds)))
    walker.issue(duration.value ?? duration.key, `${field}.duration`, 'must be a positive number of seconds');
  const ratio = walker.string(entries.get('aspectRatio'), `${field}.aspectRatio`);
  if (ratio !== undefined && !ASPECT_RATIO.test(ratio))
    walker.issue(entries.get('aspectRatio')!.value, `${field}.aspectRatio`, 'must look like 16:9');

  const outEntry = entries.get('out');
  const outText = walker.string(outEntry, `${field}.out`);
  const out = outText === undefined ? options.defaultOut : outputTarget(walker, outEntry!.value, `${field}.out`, outText, kind);
  const post = assetPost(walker, { entries, node, field, kind, out }, options.defaultPost);
  // defaults.variants is for image assets only, as defaults.post is.
  const variants = entries.has('variants')
    ? readVariants(walker, entries.get('variants'), `${field}.variants`)
    : kind === 'image'
      ? options.defaultVariants
      : undefined;
  if (kind === 'sheet') checkSheetOut(walker, { entries, node, field, out, sheet });
  const checked = assetChecks(walker, { entries, node, field, kind }, options.defaultChecks);

  if (walker.issues.length > before || !id || !kind || !text || !out) return undefined;
  const { line, col } = walker.positionOf(node);
  const asset: ManifestAsset = { id, kind, out, position: { line, col } };
  if (kind === 'workflow') asset.workflow = text;
  else if (sheet) asset.sheet = sheet;
  else asset.prompt = text;
  if (agent) asset.agent = agent;
  if (set) asset.set = set;
  if (typeof seconds === 'number') asset.duration = seconds;
  if (ratio) asset.aspectRatio = ratio;
  if (post?.length) asset.post = post;
  // One take is an asset without takes: `variants: 1` and none are the same asset.
  if (kind === 'image' && variants !== undefined && variants > 1) asset.variants = variants;
  return Object.assign(asset, checked);
}

/** Why `variants` is refused on each kind that is not an image (said after "does not apply to a … asset"). */
const VARIANTS_ONLY_IMAGES: Record<AssetKind, string> = {
  image: '',
  workflow: ': a run makes its own set of files; make separate assets for more runs',
  video: ': a video take is a 180-credit job of its own; make separate assets',
  sheet: ': a sheet packs the picked takes of its inputs, free',
};

/** `variants`: a whole number of takes from 1 to MAX_TAKES; undefined when absent or after reporting the problem. */
function readVariants(walker: Walker, entry: Entry | undefined, field: string): number | undefined {
  if (!entry) return undefined;
  const value = isScalar(entry.value) ? entry.value.value : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_TAKES) return value;
  walker.issue(
    entry.value ?? entry.key,
    field,
    `must be a whole number of takes from 1 to ${MAX_TAKES} (each take is a paid call), not ${JSON.stringify(value ?? null)}`,
  );
  return undefined;
}

function readSet(walker: Walker, entry: Entry | undefined, field: string): Record<string, string> | undefined {
  if (!entry) return undefined;
  if (!isMap(entry.value)) {
    walker.issue(entry.value ?? entry.key, field, 'must be a mapping of node id to prompt');
    return undefined;
  }
  const set: Record<string, string> = {};
  for (const pair of entry.value.items) {
    const key = walker.resolve(pair.key as Node_);
    const node = isScalar(key) ? key.value : undefined;
    if (typeof node !== 'string' || !node) walker.issue(key ?? entry.value, field, 'node ids must be strings');
    else {
      const prompt = walker.string({ key: key!, value: walker.resolve(pair.value as Node_) }, `${field}.${node}`);
      if (prompt !== undefined) set[node] = prompt;
    }
  }
  return set;
}

/** Reads an `out` value by the rules of ./paths.ts, reporting at the value's position. */
function outputTarget(walker: Walker, node: Node_, field: string, raw: string, kind: AssetKind | undefined): OutputTarget | undefined {
  const result = parseOut(raw, kind);
  if ('error' in result) return void walker.issue(node, field, result.error);
  return result.target;
}
