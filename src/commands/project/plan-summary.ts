// The plan of `assetgen build --dry-run` for people and pull requests: the estimate line, the
// budget check (what the real build's cap would hold back), and a short Markdown summary for
// $GITHUB_STEP_SUMMARY or a PR comment (--format markdown).
import type { Plan, PlanAction, PlanItem } from '../../pipeline/records.js';
import type { AssetResult } from '../../pipeline/outcome.js';
import type { BudgetCheck, StaleSheet } from './records.js';

/** What the summaries read of a plan: its rows (as the dry run's --json has them) and its estimate. */
export interface PlanView {
  items: readonly Pick<PlanItem, 'id' | 'status' | 'action' | 'estimate' | 'reasons' | 'takes' | 'takePrice'>[];
  estimate: Plan['estimate'];
  /** Absent in a plan view made before prices had sources (tests of the summaries alone). */
  prices?: Plan['prices'];
}
import { plural } from '../../cli/credits.js';
import { listIds } from '../../pipeline/id-list.js';
import { markdownCell } from '../../pipeline/markup.js';
import { PRICE_SOURCE_WORDS } from '../../pipeline/prices.js';

/**
 * What a plan row says it costs, as the plan's estimate counts it: a generation's price, a resume's
 * (its answer never recorded: asking again may be its first execution), 0 for a free re-process or move.
 */
export function creditCell(item: Pick<PlanItem, 'action' | 'estimate' | 'takes' | 'takePrice'>): string {
  if (!['generate', 'resume', 'reprocess', 'move', 'restore'].includes(item.action)) return '';
  const total = item.estimate === null ? '?' : String(item.estimate);
  // Takes are a paid call each: the count and one's price, then the sum (`3 × 10 = 30`, `3 × ?`).
  const takes = item.takes?.length ?? 0;
  if (takes < 2) return total;
  return item.takePrice === null || item.takePrice === undefined ? `${takes} × ?` : `${takes} × ${item.takePrice} = ${total}`;
}

/** The dry run's check of the cap (`cap`: its figure, where it came from and its name) against the plan; `remedy` for unknown prices. */
export function checkBudget(
  plan: PlanView,
  cap: Pick<BudgetCheck, 'max' | 'from' | 'name'> | undefined,
  remedy?: string,
): BudgetCheck | undefined {
  if (cap === undefined) return undefined;
  const { max, from, name } = cap;
  const unknown = plan.estimate.unknown;
  return { max, over: plan.estimate.credits > max, unknown, from, name, ...(unknown.length && remedy ? { remedy } : {}) };
}

/**
 * Which prices the estimate uses and where each comes from: `sprite-artist 10 (declared in
 * assetgen.yaml), wf_tileset 40 (learned on this machine)`; unknown ones as `?`. Undefined when the
 * plan pays nothing. The video job's published price is left out unless it is the only one; its
 * price observed in the lock (the polls it took included) is said.
 */
export function pricesLine(plan: PlanView, code: (text: string) => string = (text) => text): string | undefined {
  const prices = plan.prices ?? [];
  const worthSaying = prices.filter((price) => price.name !== undefined || price.source !== 'published');
  if (!prices.length) return undefined;
  const shown = (worthSaying.length ? worthSaying : prices).map((price) => {
    const what = price.name === undefined ? 'video job' : code(price.name);
    return price.credits === null ? `${what} ? (unknown)` : `${what} ${price.credits} (${PRICE_SOURCE_WORDS[price.source!]})`;
  });
  return `Prices per call: ${listIds(shown)}.`;
}

export const failsBudget = (check: BudgetCheck | undefined): boolean => Boolean(check && (check.over || check.unknown.length));

/**
 * The sheets a plan leaves stale: with `results` (a build that ran) each sheet not packed and not
 * up to date, with the reason it was not; without (a dry run) each the plan keeps as it is.
 */
export function staleSheets(
  items: readonly Pick<PlanItem, 'id' | 'kind' | 'action' | 'reasons'>[],
  results?: ReadonlyMap<string, Pick<AssetResult, 'outcome' | 'reason'>>,
): StaleSheet[] {
  const stale: StaleSheet[] = [];
  for (const item of items) {
    if (item.kind !== 'sheet') continue;
    const result = results?.get(item.id);
    const packed = results ? result?.outcome === 'built' || result?.outcome === 'unchanged' : item.action !== 'keep';
    if (!packed) stale.push({ id: item.id, reason: result?.reason ?? item.reasons.join('; ') });
  }
  return stale;
}

/** People's line for each stale sheet (stderr). */
export const staleSheetLine = (sheet: StaleSheet): string => `sheet ${sheet.id} left stale: ${sheet.reason}`;

/** "30 credits + unknown for a, b" — the known part, then what is not known, never 0 pretending to be known. */
export function estimateText(plan: PlanView, code: (text: string) => string = (text) => text): string {
  const { credits, unknown, calls } = plan.estimate;
  // With takes, a row is several paid calls: their number is said before anything is paid.
  const made = calls !== undefined ? ` for ${plural(calls, 'paid call')}` : '';
  if (!unknown.length) return `${plural(credits, 'credit')}${made}`;
  const ids = listIds(unknown, code);
  return `${credits ? `${plural(credits, 'credit')} + ` : ''}unknown for ${ids} (no price observed, learned or declared for their agent or workflow)${made}`;
}

const count = (plan: PlanView, action: PlanAction): number => plan.items.filter((item) => item.action === action).length;

/** What the plan does, counted by action. */
export function actionCounts(plan: PlanView): string[] {
  const parts = [`${count(plan, 'generate')} to generate`, `${count(plan, 'resume')} to resume`];
  if (count(plan, 'restore')) parts.push(`${count(plan, 'restore')} to restore from the remote cache, 0 credits`);
  if (count(plan, 'reprocess')) parts.push(`${count(plan, 'reprocess')} to re-process (free)`);
  if (count(plan, 'move')) parts.push(`${count(plan, 'move')} to move (free)`);
  if (count(plan, 'prune')) parts.push(`${count(plan, 'prune')} to prune`);
  if (count(plan, 'keep')) parts.push(`${count(plan, 'keep')} left alone`);
  parts.push(`${count(plan, 'none')} up to date`);
  return parts;
}

export function budgetLine(check: BudgetCheck | undefined): string | undefined {
  if (!check) return undefined;
  const cap = `${plural(check.max, 'credit')} (${check.name})`;
  if (check.over) return `Over budget: the estimate passes the cap of ${cap}; the build would stop there (exit 8).`;
  if (check.unknown.length) return `Budget ${cap}: ${plural(check.unknown.length, 'asset')} of unknown price would be held back (exit 8).`;
  return `Within the budget of ${cap}.`;
}

const MARKDOWN_ROWS = 100;

/** The plan as a short Markdown summary. */
export function planMarkdown(plan: PlanView, check: BudgetCheck | undefined, manifest: string): string {
  const lines = [`### assetgen build plan — ${markdownCell(manifest, 'code')}`, ''];
  lines.push(`**${actionCounts(plan).join(' · ')}**`, '');
  lines.push(`**Estimated cost:** ${estimateText(plan, (id) => markdownCell(id, 'code'))}`, '');
  const prices = pricesLine(plan, (name) => markdownCell(name, 'code'));
  if (prices) lines.push(prices, '');
  const budget = budgetLine(check);
  // Written as Markdown: the cap's name and the remedy's `prices:` and command are code spans.
  if (budget) lines.push(`${failsBudget(check) ? '⚠️ ' : ''}**${budget}**`, '');
  if (check?.remedy) lines.push(check.remedy, '');
  const changes = plan.items.filter((item) => item.action !== 'none');
  if (changes.length) {
    lines.push('| Asset | Status | Action | Credits | Why |', '|---|---|---|---:|---|');
    // A pull-request comment holds 65,536 characters: the first rows, then a count.
    for (const item of changes.slice(0, MARKDOWN_ROWS)) {
      lines.push(
        `| ${markdownCell(item.id, 'code')} | ${item.status} | ${item.action} | ${creditCell(item)} | ${markdownCell(item.reasons.join('; '))} |`,
      );
    }
    if (changes.length > MARKDOWN_ROWS)
      lines.push(
        `| … | | | | ${(changes.length - MARKDOWN_ROWS).toLocaleString('en')} more (\`assetgen build --dry-run\` lists them all) |`,
      );
    lines.push('');
  }
  lines.push('_Nothing was sent or paid: this is `assetgen build --dry-run`._', '');
  return lines.join('\n');
}
