// What a build learns of prices as it goes: each paid call's answer says what one call of its agent
// or workflow costs. Remembered on this machine (src/config/learned-prices.ts) when new, so a
// later build of any project on the same service knows it; and, under a cap, checked against
// the manifest's declared prices (pipeline/budget.ts DeclaredPriceCheck).
import type { Credits } from '../../client/types.js';
import type { Env } from '../../config/paths.js';
import { rememberPrices } from '../../config/learned-prices.js';
import type { CapRefusal, DeclaredPriceCheck } from '../../pipeline/budget.js';
import { chargeKey, priceName } from '../../pipeline/prices.js';
import type { PlanItem } from '../../pipeline/records.js';

/** What one paid call cost by its answer: a replay's is what the call that paid for it was charged; undefined when unknown. */
export function priceOfAnswer(credits: Credits): number | undefined {
  return credits.paidEarlier ?? credits.charged;
}

export class BuildPrices {
  /** The prices written to this machine's store by this build: each new one once. */
  readonly #remembered = new Map<string, number>();

  constructor(
    readonly service: string,
    readonly env: Env,
    /** Under a cap: the agents and workflows whose price is only declared. */
    readonly declared?: DeclaredPriceCheck,
  ) {}

  /**
   * A paid call of `item` (an image, a take, a run's submission) was answered: its price is
   * remembered when new, and checked against a declaration. A refusal when the asset must make no
   * further paid call (its agent charged more than declared).
   */
  answered(item: PlanItem, credits: Credits): CapRefusal | undefined {
    const price = priceOfAnswer(credits);
    const name = priceName(item);
    if (price === undefined || !name) return this.refusal(item);
    const key = chargeKey(item);
    // Once per agent and price in a build (rememberPrices writes only what the store lacks).
    if (this.#remembered.get(key) !== price) {
      this.#remembered.set(key, price);
      rememberPrices(this.service, { [name.section]: { [name.id]: price } }, this.env);
    }
    return this.declared?.answered(item, price);
  }

  /** Before a further paid call of `item`: a refusal once its agent charged more than declared. */
  refusal(item: PlanItem): CapRefusal | undefined {
    return this.declared?.refusal(item);
  }
}
