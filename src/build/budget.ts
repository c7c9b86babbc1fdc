// A build's credit budget (--max-credits): pure bookkeeping, used by the build loop
// (src/commands/build-run.ts) before each submission.
import type { PlanItem } from './plan.js';

/**
 * --max-credits: what was spent, what running assets may still spend, and what an asset of unknown
 * cost counts as. A build never submits work that could take it past the cap.
 */
export class CreditBudget {
  #spent = 0;
  #reserved = 0;
  /** An asset of unknown cost counts as the largest charge seen so far in this build. */
  #largestCharge = 0;

  constructor(readonly max: number | undefined) {}

  /** A resume pays nothing new; a video counts its 180 up front. */
  costOf(item: PlanItem): number {
    return item.action === 'resume' ? 0 : (item.estimate ?? this.#largestCharge);
  }

  /** Why `cost` may not be submitted now, or undefined when it may. */
  refusal(cost: number): string | undefined {
    const committed = this.#spent + this.#reserved;
    if (this.max === undefined || committed + cost <= this.max) return undefined;
    return `would pass --max-credits ${this.max} (${committed} spent or reserved, ${cost} more)`;
  }

  /**
   * Holds `cost` for a running asset; the returned function settles it with what the asset was
   * charged, once — as soon as that is known (files saved), or when the asset ends without them.
   */
  reserve(cost: number): (charged: number) => void {
    this.#reserved += cost;
    let settled = false;
    return (charged) => {
      if (settled) return;
      settled = true;
      this.#reserved -= cost;
      this.#spent += charged;
      this.#largestCharge = Math.max(this.#largestCharge, charged);
    };
  }
}
