// The dry run's words for big plans: ids listed up to ten, the Markdown table cut to fit a PR comment.
import { describe, expect, it } from 'vitest';
import type { Plan, PlanItem } from '../../src/pipeline/records.js';
import { checkBudget, estimateText, planMarkdown } from '../../src/commands/project/plan-summary.js';
import { listIds } from '../../src/pipeline/id-list.js';

const item = (id: string): PlanItem =>
  ({
    id,
    status: 'new',
    action: 'generate',
    kind: 'image',
    spec: 's',
    reasons: ['not built yet'],
    files: [],
    estimate: null,
    prunable: [],
  }) as PlanItem;

describe('the plan summary of a big plan', () => {
  const ids = Array.from({ length: 5000 }, (_, i) => `icon-${i}`);
  const plan: Plan = { service: 'x', items: ids.map(item), estimate: { credits: 0, unknown: ids }, prices: [], unmatched: [] };

  it('lists ten ids, then how many more', () => {
    expect(listIds(['a', 'b'])).toBe('a, b');
    expect(listIds(ids)).toBe('icon-0, icon-1, icon-2, icon-3, icon-4, icon-5, icon-6, icon-7, icon-8, icon-9 and 4,990 more');
    expect(estimateText(plan)).toMatch(/^unknown for icon-0, .* and 4,990 more/);
  });

  it("keeps the Markdown under a PR comment's 65,536 characters: 100 rows, then a count", () => {
    const markdown = planMarkdown(
      plan,
      checkBudget(plan, { max: 100, from: 'budget', name: '`budget: 100` in assetgen.yaml' }),
      'assetgen.yaml',
    );
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown.match(/^\| `icon-\d+` \|/gm)).toHaveLength(100);
    expect(markdown).toContain('| … | | | | 4,900 more (`assetgen build --dry-run` lists them all) |');
  });
});
