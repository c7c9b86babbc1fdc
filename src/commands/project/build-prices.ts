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

/**
 * What one paid call (an image, a take, a run's or a video's submission) cost by its answer: its
 * own charge, or for a replay what the call that paid for it was charged (`paidEarlier`);
 * undefined when the answer does not say. Every call that generates something deducts credits
 * (service-api.md §1), so 0 is never such a call's price: an answer that says 0 and nothing of an
 * earlier charge is a replay that does not restate what its original call was charged (its
 * `X-Credits-Charged: 0` is what the replay itself cost), and one that says nothing is a service
 * that does not say. Either way the charge is not known: never recorded as 0, never learned.
 */
export function priceOfAnswer(credits: Credits): number | undefined {
  if (credits.paidEarlier !== undefined && credits.paidEarlier > 0) return credits.paidEarlier;
  // One call's price, when `charged` also holds a lost attempt's (a service that did not honour the key charged twice).
  const lost = credits.chargedThenLost ?? 0;
  const charged = credits.charged !== undefined && lost > 0 && credits.charged > lost ? credits.charged - lost : credits.charged;
  return charged !== undefined && charged > 0 ? charged : undefined;
}

/**
 * What a paid call's key has cost, by its answer: this call's own charge, plus for a replay what the
 * call that paid for it was charged; undefined when the answer does not say that (priceOfAnswer).
 */
export function chargeOfAnswer(credits: Credits): number | undefined {
  const price = priceOfAnswer(credits);
  if (price === undefined) return undefined;
  // A replay: the call that paid, plus this one's own; otherwise all this call was charged (two calls' worth when a lost attempt's charge is in it).
  return credits.paidEarlier !== undefined && credits.paidEarlier > 0 ? price + (credits.charged ?? 0) : (credits.charged ?? price);
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
   * remembered when new, and checked against a declaration. An answer that does not say its price
   * (priceOfAnswer) teaches nothing: a declared price stays unchecked, so the next asset of that
   * agent goes alone as its first did. A refusal when the asset must make no further paid call (its
   * agent charged more than declared).
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
