// The credit cap's bookkeeping: reservations, polls asked one by one, unknown prices never started.
import { describe, expect, it } from 'vitest';
import { CreditBudget, describeRefusal, isRefusal, type Reservation } from '../../src/pipeline/budget.js';

const started = (budget: CreditBudget, cost: number | null): Reservation => {
  const reservation = budget.start(cost);
  if (isRefusal(reservation)) throw new Error(`refused: ${describeRefusal(reservation, `--max-credits ${reservation.max}`)}`);
  return reservation;
};

describe('CreditBudget', () => {
  it('refuses what could pass the cap, counting running assets at their reservation', () => {
    const budget = new CreditBudget(25);
    const sword = started(budget, 10);
    started(budget, 10);
    expect(budget.start(10)).toEqual({ kind: 'over-cap', needed: 10, committed: 20, max: 25 });
    expect(isRefusal(budget.start(5))).toBe(false);
    sword.charged(4); // charged less than estimated: once it ends, the rest is free again
    sword.release();
    expect(budget.committed).toBe(19);
    expect(isRefusal(budget.start(6))).toBe(false);
    expect(budget.spent).toBe(4);
  });

  it('an asset refused only for what running assets hold and have not spent may wait for them to end', async () => {
    const budget = new CreditBudget(40);
    const first = started(budget, 30);
    first.charged(10); // the declared 30 was above the real 10
    const second = started(budget, 10);
    second.charged(10);
    expect(budget.start(10)).toMatchObject({ kind: 'over-cap', committed: 40 });
    expect(budget.mayFitLater(10)).toBe(true); // spent 20, and 10 more fits in 40
    expect(budget.mayFitLater(25)).toBe(false); // would pass the cap whatever the others spend
    const ended = budget.ended();
    first.release();
    await ended;
    started(budget, 10).charged(10);
    // 30 spent, nothing running holds more than it spent: a refusal is final.
    expect(budget.start(20)).toMatchObject({ kind: 'over-cap', committed: 30 });
    expect(budget.mayFitLater(20)).toBe(false);
    expect(new CreditBudget(undefined).mayFitLater(10)).toBe(false);
  });

  it('never starts an asset of unknown price under a cap (a cap of 0 starts nothing); without a cap, anything', () => {
    expect(new CreditBudget(1000).start(null)).toEqual({ kind: 'unknown-cost', max: 1000 });
    expect(new CreditBudget(0).start(10)).toMatchObject({ kind: 'over-cap' });
    expect(isRefusal(new CreditBudget(0).start(0))).toBe(false);
    expect(isRefusal(new CreditBudget(undefined).start(null))).toBe(false);
  });

  it('asks for each poll: inside the reservation, then from what is free, then refuses', () => {
    const budget = new CreditBudget(183);
    const video = started(budget, 180);
    video.charged(180);
    expect(video.allow(budget.pollPrice)).toBeUndefined(); // 181 ≤ 183: grows the reservation
    video.charged(1);
    budget.learnPollPrice(1);
    expect(video.allow(1)).toBeUndefined();
    video.charged(1);
    expect(video.allow(1)).toBeUndefined();
    video.charged(1);
    expect(video.allow(1)).toEqual({ kind: 'over-cap', needed: 1, committed: 183, max: 183 });
    expect(budget.spent).toBe(183);
  });

  it('charges past a reservation still count (an answer may cost more than the estimate); release is once', () => {
    const budget = new CreditBudget(30);
    const a = started(budget, 10);
    a.charged(15);
    expect(budget.committed).toBe(15);
    expect(budget.start(16)).toMatchObject({ kind: 'over-cap', committed: 15 });
    a.release();
    a.release();
    expect(budget.spent).toBe(15);
    expect(describeRefusal({ kind: 'unknown-cost', max: 30 }, '--max-credits 30')).toMatch(/price is unknown/);
  });
});
