// The `post:` list of a manifest: parsed into typed steps with every default filled in (the parsed
// list is the canonical spec a lock can hash), or a PostSpecError whose path leads to the bad value.
import { PostSpecError } from './errors.js';
import { EDGE_LIMITS, FITS, IMAGE_LIMITS, KERNELS, MAX_COLOURS, MIN_COLOURS, SLICE_LIMITS, type OutputFormat } from './limits.js';
import type { ResizeSpec } from './resize.js';
import type { SliceSpec } from './slice.js';

export type PostStep =
  | { kind: 'trim'; threshold: number }
  | ({ kind: 'resize' } & ResizeSpec)
  | { kind: 'pot' }
  | { kind: 'palette'; colors: number; dither: number }
  | { kind: 'format'; format: OutputFormat }
  // Clean edges (./edges.ts): the key colour as #rrggbb, distances 0-255; bleed's reach and extrude's border in pixels.
  | { kind: 'key'; color: string; tolerance: number; softness: number }
  | { kind: 'bleed'; radius: number }
  | { kind: 'extrude'; pixels: number }
  | ({ kind: 'slice' } & SliceSpec);

export type PostStepKind = PostStep['kind'];
export const POST_STEP_KINDS: readonly PostStepKind[] = ['trim', 'resize', 'pot', 'palette', 'format', 'key', 'bleed', 'extrude', 'slice'];
const FORMATS: readonly OutputFormat[] = ['png', 'webp'];
/** Steps after which a palette would no longer hold: they make new pixels or new colours. */
const BEFORE_PALETTE: readonly PostStepKind[] = ['key', 'trim', 'resize', 'pot'];
/**
 * The other order rules of clean edges: `step` must come `before` or `after` `other` when both are
 * listed, for the reason given.
 */
const EDGE_ORDER: readonly { step: PostStepKind; rule: 'before' | 'after'; other: PostStepKind; why: string }[] = [
  { step: 'key', rule: 'before', other: 'trim', why: 'trim cuts away the transparency key makes' },
  { step: 'key', rule: 'before', other: 'resize', why: 'resizing first blends the key colour into the edges' },
  { step: 'extrude', rule: 'after', other: 'trim', why: 'trim would cut a transparent border off again' },
  { step: 'extrude', rule: 'after', other: 'resize', why: 'resizing would scale the border' },
  { step: 'extrude', rule: 'before', other: 'pot', why: 'the sides would no longer be powers of two' },
  { step: 'bleed', rule: 'after', other: 'key', why: 'key makes the transparent pixels bleed colours' },
  { step: 'bleed', rule: 'after', other: 'resize', why: 'resizing drops the colour of transparent pixels' },
  { step: 'bleed', rule: 'after', other: 'pot', why: "pot's transparent padding would stay uncoloured" },
  { step: 'bleed', rule: 'after', other: 'palette', why: 'the quantiser drops the colour of transparent pixels' },
];
/** Steps that run on each frame, so come after `slice` (the cut is made on the image as generated; `key` may come before it). */
const AFTER_SLICE: readonly PostStepKind[] = ['trim', 'resize', 'pot', 'palette', 'extrude', 'bleed'];

type Path = (string | number)[];

export function parsePostSteps(value: unknown): PostStep[] {
  if (!Array.isArray(value)) {
    throw new PostSpecError([], `post must be a list of steps, e.g. [trim, {resize: {width: 64, height: 64, kernel: nearest}}, pot]`);
  }
  const steps: PostStep[] = [];
  const seen = new Map<PostStepKind, number>();
  value.forEach((item: unknown, index) => {
    const step = parseStep(item, index);
    const earlier = seen.get(step.kind);
    if (earlier !== undefined)
      throw new PostSpecError([index], `post[${index}]: ${step.kind} is already post[${earlier}]; each step may appear once`);
    seen.set(step.kind, index);
    steps.push(step);
  });
  const format = seen.get('format');
  if (format !== undefined && format !== steps.length - 1) {
    throw new PostSpecError([format], `post[${format}]: format must be the last step (it says how the result is written)`);
  }
  const palette = seen.get('palette');
  for (const kind of BEFORE_PALETTE) {
    const at = seen.get(kind);
    if (palette !== undefined && at !== undefined && at > palette) {
      throw new PostSpecError([at], `post[${at}]: ${kind} must come before palette (post[${palette}]): it would add colours back`);
    }
  }
  for (const { step, rule, other, why } of EDGE_ORDER) {
    const at = seen.get(step);
    const otherAt = seen.get(other);
    if (at === undefined || otherAt === undefined || (rule === 'before' ? at < otherAt : at > otherAt)) continue;
    throw new PostSpecError([at], `post[${at}]: ${step} must come ${rule} ${other} (post[${otherAt}]): ${why}`);
  }
  const slice = seen.get('slice');
  for (const kind of AFTER_SLICE) {
    const at = seen.get(kind);
    if (slice !== undefined && at !== undefined && at < slice) {
      throw new PostSpecError([at], `post[${at}]: ${kind} must come after slice (post[${slice}]): it runs on each frame`);
    }
  }
  return steps;
}

/** Whether the steps cut the image into frames (each an output of its own). */
export const slices = (steps: readonly PostStep[] | undefined): boolean => !!steps?.some((step) => step.kind === 'slice');

function parseStep(item: unknown, index: number): PostStep {
  const here = `post[${index}]`;
  let kind: unknown = item;
  let argument: unknown;
  if (isRecord(item)) {
    const keys = Object.keys(item);
    if (keys.length !== 1) {
      throw new PostSpecError(
        [index],
        `${here}: a step is one key (${POST_STEP_KINDS.join(', ')}), got ${keys.length === 0 ? 'none' : keys.join(', ')}`,
      );
    }
    kind = keys[0];
    argument = item[keys[0]];
  }
  if (typeof kind !== 'string' || !(POST_STEP_KINDS as readonly string[]).includes(kind)) {
    throw new PostSpecError([index], `${here}: unknown step ${describe(kind)}; the steps are ${POST_STEP_KINDS.join(', ')}`);
  }
  const path: Path = [index, kind];
  const label = `${here}.${kind}`;
  switch (kind as PostStepKind) {
    case 'trim': {
      if (isAbsent(argument)) return { kind: 'trim', threshold: 0 };
      const options = record(argument, path, label, ['threshold'], 'true, or {threshold: 0-254}');
      return { kind: 'trim', threshold: integer(options.threshold ?? 0, [...path, 'threshold'], `${label}.threshold`, 0, 254) };
    }
    case 'pot':
      if (!isAbsent(argument)) throw new PostSpecError(path, `${label} takes no value (write \`pot\`), got ${describe(argument)}`);
      return { kind: 'pot' };
    case 'resize':
      return { kind: 'resize', ...parseResize(argument, path, label) };
    case 'palette': {
      if (typeof argument === 'number')
        return { kind: 'palette', colors: integer(argument, path, label, MIN_COLOURS, MAX_COLOURS), dither: 0 };
      const options = record(
        argument,
        path,
        label,
        ['colors', 'dither'],
        `a number of colours (${MIN_COLOURS}-${MAX_COLOURS}), or {colors, dither: 0-1}`,
      );
      const colors = integer(options.colors, [...path, 'colors'], `${label}.colors`, MIN_COLOURS, MAX_COLOURS);
      const dither = options.dither ?? 0;
      if (typeof dither !== 'number' || !(dither >= 0 && dither <= 1)) {
        throw new PostSpecError([...path, 'dither'], `${label}.dither must be a number from 0 to 1, got ${describe(dither)}`);
      }
      return { kind: 'palette', colors, dither };
    }
    case 'format':
      if (typeof argument !== 'string' || !(FORMATS as readonly string[]).includes(argument)) {
        throw new PostSpecError(path, `${label} must be ${FORMATS.join(' or ')}, got ${describe(argument)}`);
      }
      return { kind: 'format', format: argument as OutputFormat };
    case 'key':
      return parseKey(argument, path, label);
    case 'bleed': {
      const { maxRadius, defaultRadius } = EDGE_LIMITS.bleed;
      if (isAbsent(argument)) return { kind: 'bleed', radius: defaultRadius };
      if (typeof argument === 'number') return { kind: 'bleed', radius: integer(argument, path, label, 1, maxRadius) };
      const options = record(argument, path, label, ['radius'], `true, a radius in pixels (1-${maxRadius}), or {radius}`);
      return { kind: 'bleed', radius: integer(options.radius ?? defaultRadius, [...path, 'radius'], `${label}.radius`, 1, maxRadius) };
    }
    case 'extrude':
      if (isAbsent(argument)) return { kind: 'extrude', pixels: 1 };
      return { kind: 'extrude', pixels: integer(argument, path, label, 1, EDGE_LIMITS.maxExtrude) };
    case 'slice':
      return { kind: 'slice', ...parseSlice(argument, path, label) };
  }
}

/** `{key: {color, tolerance, softness}}`, or `{key: COLOR}` with the default distances. */
function parseKey(argument: unknown, path: Path, label: string): PostStep {
  const { defaultTolerance, defaultSoftness } = EDGE_LIMITS.key;
  const options =
    typeof argument === 'string' || Array.isArray(argument)
      ? { color: argument }
      : record(argument, path, label, ['color', 'tolerance', 'softness'], `{color, tolerance: 0-255, softness: 0-255}`);
  const distance = (key: 'tolerance' | 'softness', fallback: number) =>
    integer(options[key] ?? fallback, [...path, key], `${label}.${key}`, 0, 255);
  return {
    kind: 'key',
    color: parseColour(options.color, isRecord(argument) ? [...path, 'color'] : path, `${label}${isRecord(argument) ? '.color' : ''}`),
    tolerance: distance('tolerance', defaultTolerance),
    softness: distance('softness', defaultSoftness),
  };
}

/** '#rrggbb', '#rgb' or [r, g, b] (0-255 each), as '#rrggbb' in lower case: one colour, one spec hash. */
function parseColour(value: unknown, path: Path, label: string): string {
  if (Array.isArray(value) && value.length === 3 && value.every((channel) => Number.isInteger(channel) && channel >= 0 && channel <= 255))
    return `#${(value as number[]).map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
  if (typeof value === 'string') {
    const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value.trim())?.[1];
    if (hex) return `#${(hex.length === 3 ? hex.replace(/./g, '$&$&') : hex).toLowerCase()}`;
  }
  // YAML reads an unquoted #ff00ff as a comment: the value is then missing.
  const hint = value === undefined || value === null ? ' (quote it: a # unquoted starts a YAML comment)' : '';
  throw new PostSpecError(path, `${label} must be a colour '#rrggbb', '#rgb' or [r, g, b], got ${describe(value)}${hint}`);
}

const SLICE_FORMS = '{columns, rows} (a grid), or {gaps: transparent} / {gaps: "#rrggbb"} (cut where the background shows)';

function parseSlice(argument: unknown, path: Path, label: string): SliceSpec {
  if (!isRecord(argument)) throw new PostSpecError(path, `${label} must be ${SLICE_FORMS}, got ${describe(argument)}`);
  const count = (options: Record<string, unknown>) =>
    options.count === undefined ? {} : { count: integer(options.count, [...path, 'count'], `${label}.count`, 1, SLICE_LIMITS.maxFrames) };
  if (!('gaps' in argument)) {
    const options = record(argument, path, label, ['columns', 'rows', 'count'], SLICE_FORMS);
    if (options.columns === undefined && options.rows === undefined)
      throw new PostSpecError(path, `${label} needs columns, rows or both (a grid), or gaps`);
    const side = (key: 'columns' | 'rows') =>
      options[key] === undefined ? 1 : integer(options[key], [...path, key], `${label}.${key}`, 1, SLICE_LIMITS.maxGrid);
    const columns = side('columns');
    const rows = side('rows');
    if (columns * rows > SLICE_LIMITS.maxFrames)
      throw new PostSpecError(path, `${label}: ${columns} × ${rows} is ${columns * rows} frames; the most is ${SLICE_LIMITS.maxFrames}`);
    const spec = { by: 'grid' as const, columns, rows, ...count(options) };
    if (spec.count !== undefined && spec.count > columns * rows)
      throw new PostSpecError([...path, 'count'], `${label}.count is ${spec.count}, more than the grid's ${columns * rows} cells`);
    return spec;
  }
  const options = record(argument, path, label, ['gaps', 'tolerance', 'minGap', 'count'], SLICE_FORMS);
  const gaps = typeof options.gaps === 'string' ? options.gaps.trim().toLowerCase() : options.gaps;
  if (gaps !== 'transparent' && !(typeof gaps === 'string' && /^#[0-9a-f]{6}$/.test(gaps))) {
    // An unquoted `#ff00ff` is a YAML comment: the value arrives as null.
    throw new PostSpecError(
      [...path, 'gaps'],
      `${label}.gaps must be transparent or a colour "#rrggbb" (quoted: in YAML # starts a comment), got ${describe(options.gaps)}`,
    );
  }
  return {
    by: 'gaps',
    background: gaps as 'transparent' | `#${string}`,
    tolerance: integer(options.tolerance ?? 0, [...path, 'tolerance'], `${label}.tolerance`, 0, SLICE_LIMITS.maxTolerance),
    minGap: integer(options.minGap ?? 1, [...path, 'minGap'], `${label}.minGap`, 1, IMAGE_LIMITS.maxSide),
    ...count(options),
  };
}

function parseResize(argument: unknown, path: Path, label: string): ResizeSpec {
  const max = IMAGE_LIMITS.maxSide;
  if (typeof argument === 'string') {
    const match = /^(\d{1,5})x(\d{1,5})$/.exec(argument.trim());
    if (!match)
      throw new PostSpecError(
        path,
        `${label} must be WIDTHxHEIGHT (e.g. 64x64) or {width, height, fit, kernel}, got ${describe(argument)}`,
      );
    return {
      width: integer(Number(match[1]), path, `${label} width`, 1, max),
      height: integer(Number(match[2]), path, `${label} height`, 1, max),
      fit: 'contain',
      kernel: 'lanczos3',
    };
  }
  const options = record(argument, path, label, ['width', 'height', 'fit', 'kernel'], '{width, height, fit, kernel} or WIDTHxHEIGHT');
  if (options.width === undefined && options.height === undefined)
    throw new PostSpecError(path, `${label} needs a width, a height or both`);
  const fit = options.fit ?? 'contain';
  if (typeof fit !== 'string' || !(FITS as readonly string[]).includes(fit)) {
    throw new PostSpecError([...path, 'fit'], `${label}.fit must be one of ${FITS.join(', ')}, got ${describe(fit)}`);
  }
  const kernel = options.kernel ?? 'lanczos3';
  if (typeof kernel !== 'string' || !(KERNELS as readonly string[]).includes(kernel)) {
    throw new PostSpecError(
      [...path, 'kernel'],
      `${label}.kernel must be one of ${KERNELS.join(', ')} (nearest for pixel art), got ${describe(kernel)}`,
    );
  }
  const size = (key: 'width' | 'height') =>
    options[key] === undefined ? undefined : integer(options[key], [...path, key], `${label}.${key}`, 1, max);
  return { width: size('width'), height: size('height'), fit: fit as ResizeSpec['fit'], kernel: kernel as ResizeSpec['kernel'] };
}

/** One line for people (a gallery, a plan): "trim · resize 64×64 contain nearest · pot · palette 8 · webp". */
export function describePostSteps(steps: readonly PostStep[]): string {
  return steps
    .map((step) => {
      switch (step.kind) {
        case 'trim':
          return step.threshold > 0 ? `trim (alpha ≤ ${step.threshold})` : 'trim';
        case 'resize':
          return `resize ${step.width ?? 'auto'}×${step.height ?? 'auto'} ${step.fit} ${step.kernel}`;
        case 'pot':
          return 'pot';
        case 'palette':
          return `palette ${step.colors}${step.dither > 0 ? ` dither ${step.dither}` : ''}`;
        case 'format':
          return step.format;
        case 'key':
          return `key ${step.color} (tolerance ${step.tolerance}, softness ${step.softness})`;
        case 'bleed':
          return `bleed ${step.radius}px`;
        case 'extrude':
          return `extrude ${step.pixels}px`;
        case 'slice': {
          const count = step.count === undefined ? '' : ` (${step.count} frames)`;
          if (step.by === 'grid') return `slice ${step.columns}×${step.rows}${count}`;
          return `slice at ${step.background} gaps${step.tolerance > 0 ? ` ±${step.tolerance}` : ''}${count}`;
        }
      }
    })
    .join(' · ');
}

function record(value: unknown, path: Path, label: string, keys: readonly string[], expected: string): Record<string, unknown> {
  if (!isRecord(value)) throw new PostSpecError(path, `${label} must be ${expected}, got ${describe(value)}`);
  const unknown = Object.keys(value).find((key) => !keys.includes(key));
  if (unknown !== undefined)
    throw new PostSpecError([...path, unknown], `${label}: unknown key ${unknown}; the keys are ${keys.join(', ')}`);
  return value;
}

function integer(value: unknown, path: Path, label: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new PostSpecError(path, `${label} must be a whole number from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** `- trim`, `- trim:` and `- trim: true` all mean the step with its defaults. */
const isAbsent = (value: unknown): boolean => value === undefined || value === null || value === true;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'a list' : 'a map';
}
