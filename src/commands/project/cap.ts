// A build's cap as its reader set it, and what to do about the prices it cannot judge: where the
// cap came from (`budget: 400` in assetgen.yaml, or --max-credits 400) and, for agents and
// workflows of unknown price, the two remedies — declare them under `prices:`, or build one asset
// of each once without the cap — in the words of the front end (the command line, or MCP's build).
// The dry run, its Markdown, the build's refusal and MCP's build say these same lines.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { shellQuote } from '../../cli/resume.js';
import { listIds } from '../../pipeline/id-list.js';
import type { PlanPrice } from '../../pipeline/records.js';
import type { BuildOptions } from './records.js';

/** The cap in force and where it came from: `budget` in the manifest, or the flag (which wins). */
export interface Cap {
  max: number;
  from: 'budget' | 'max-credits';
}

/** The cap of a build with these options: --max-credits, else the manifest's budget; `--max-credits none` lifts it. */
export function capOf(maxCredits: BuildOptions['maxCredits'], budget: number | undefined): Cap | undefined {
  if (maxCredits === 'none') return undefined;
  if (maxCredits !== undefined) return { max: maxCredits, from: 'max-credits' };
  return budget === undefined ? undefined : { max: budget, from: 'budget' };
}

/** The cap as the reader set it: `` `budget: 400` in assetgen.yaml `` or `--max-credits 400` (MCP: `` `max_credits: 400` ``). */
export function capName(ctx: CommandContext, cap: Cap, manifest: string): string {
  return cap.from === 'budget' ? `\`budget: ${cap.max}\` in ${path.basename(manifest)}` : ctx.frontEnd.option('maxCredits', cap.max);
}

/** `assetgen build <ids> <extra>` with the flags of this build that decide where it reads and writes. */
export function buildCommandLine(
  ctx: CommandContext,
  ids: readonly string[],
  flags: Pick<BuildOptions, 'file' | 'lockOut'>,
  extra: readonly string[] = [],
): string {
  const words = ['assetgen', 'build', ...ids];
  if (flags.file) words.push('-f', flags.file);
  if (flags.lockOut) words.push('--lock-out', flags.lockOut);
  if (ctx.globals.baseUrl) words.push('--base-url', ctx.globals.baseUrl);
  if (ctx.globals.mock) words.push('--mock');
  return [...words, ...extra].map(shellQuote).join(' ');
}

/** `agent sprite-artist, workflow wf_tileset`. */
const priceNames = (prices: readonly PlanPrice[]): string =>
  listIds(prices.map((price) => `${price.kind === 'workflow' ? 'workflow' : 'agent'} ${price.name ?? ''}`));

/**
 * For the plan's prices that are unknown (none observed, learned or declared), under a cap: the
 * two remedies, with the `prices:` to write and the exact command that builds one asset of each
 * without the cap. Undefined when every price is known. Never "raise the budget": no budget fits
 * a price nobody knows.
 */
export function unknownPriceRemedy(
  ctx: CommandContext,
  prices: readonly PlanPrice[],
  cap: Cap,
  flags: Pick<BuildOptions, 'file' | 'lockOut'>,
): string | undefined {
  const unknown = prices.filter((price) => price.credits === null && price.name !== undefined);
  if (!unknown.length) return undefined;
  const section = (kind: PlanPrice['kind'], title: string): string[] => {
    const names = unknown.filter((price) => price.kind === kind).map((price) => `${price.name}: <credits>`);
    return names.length ? [`${title}: { ${names.join(', ')} }`] : [];
  };
  const declaration = `prices: { ${[...section('image', 'agents'), ...section('workflow', 'workflows')].join(', ')} }`;
  const ids = unknown.map((price) => price.firstAsset);
  const build = ctx.frontEnd.buildUncapped({
    command: buildCommandLine(ctx, ids, flags, ['--max-credits', 'none']),
    ids,
    budgetInManifest: cap.from === 'budget',
  });
  return (
    `No price is known for ${priceNames(unknown)} (none observed in assetgen.lock or on this machine, none declared): ` +
    `declare ${unknown.length === 1 ? 'it' : 'them'} in assetgen.yaml as your account page or an invoice says (\`${declaration}\`), ` +
    `or build one asset of each once without the cap: ${build}.`
  );
}

/** For the assets held back because their agent or workflow charged more than declared: what happens next. */
export function exceededNote(ids: readonly string[]): string {
  return `${listIds(ids)}: held back because their agent or workflow charged more than \`prices:\` declares; the next build uses the price observed (assetgen.lock, and this machine's store).`;
}
