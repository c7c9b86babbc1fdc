// --max-credits bookkeeping: reservations, settling once, unknown costs as the largest charge seen.
import { describe, expect, it } from 'vitest';
import { CreditBudget } from '../../src/build/budget.js';
import type { PlanItem } from '../../src/build/plan.js';

const item = (action: PlanItem['action'], estimate: number | null) => ({ action, estimate }) as PlanItem;

describe('CreditBudget', () => {
  it('refuses what could pass the cap, counting running assets at their reservation', () => {
    const budget = new CreditBudget(25);
    const settleSword = budget.reserve(budget.costOf(item('generate', 10)));
    budget.reserve(budget.costOf(item('generate', 10)));
    expect(budget.refusal(10)).toBe('would pass --max-credits 25 (20 spent or reserved, 10 more)');
    expect(budget.refusal(5)).toBeUndefined();
    settleSword(4); // charged less than estimated: the rest is free again
    expect(budget.refusal(10)).toBeUndefined();
  });

  it('settles once, and an unknown cost counts as the largest charge so far; a resume costs nothing new', () => {
    const budget = new CreditBudget(undefined);
    expect(budget.costOf(item('generate', null))).toBe(0);
    const settle = budget.reserve(10);
    settle(12);
    settle(99); // a second settle (the asset's end after its files were saved) changes nothing
    expect(budget.costOf(item('generate', null))).toBe(12);
    expect(budget.costOf(item('resume', 180))).toBe(0);
    expect(budget.refusal(1_000_000)).toBeUndefined();
  });
});
