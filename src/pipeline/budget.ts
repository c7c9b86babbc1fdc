// A build's credit cap (--max-credits, or the manifest's `budget`): pure bookkeeping over what the
// service's answers say each asset was charged. The build loop asks before every charged call —
// an asset's paid submission and each of its polls — so the ledger never passes the cap for a
// price that was known: nothing is submitted whose cost is unknown (docs/build.md, "Credits").
// A price only declared in the manifest is a claim: DeclaredPriceCheck has the first call of each
// such agent or workflow made alone, and stops it at once when the answer charged more.
import type { PlanItem } from './records.js';
import { chargeKey } from './prices.js';

/** Why an asset or a call may not go ahead. */
export type CapRefusal =
  /** Its price is known, and it does not fit in what is left. */
  | { kind: 'over-cap'; needed: number; committed: number; max: number }
  /** Nothing recorded says what it costs (a first build of an agent or workflow): it could pass any cap. */
  | { kind: 'unknown-cost'; max: number }
  /**
   * Its agent or workflow (`name`) charged more than the manifest's `prices` declared: nothing more
   * of it is sent in this build, so the cap is passed by that one call's difference at most.
   */
  | { kind: 'declared-price-exceeded'; name: string; declared: number; charged: number; max: number };

/** One running asset's share of the budget. */
export interface Reservation {
  /** What its answers say it was charged so far (submission and polls). */
  readonly spent: number;
  /** Asks for `price` more before a charged call; a refusal means: do not make the call. */
  allow(price: number): CapRefusal | undefined;
  /** Counts what one answer said this asset was charged. */
  charged(amount: number): void;
  /** The asset has ended: what it spent stays, the rest of its reservation is free again. */
  release(): void;
}

export class CreditBudget {
  /** Spent by assets that have ended. */
  #spentByEnded = 0;
  readonly #running = new Set<{ reserved: number; spent: number }>();
  /** The largest charge one poll was answered with in this build; before any, a poll is taken to cost 1. */
  #pollPrice: number | undefined;
  /** Woken when a running asset ends (`ended()`). */
  #waiting: (() => void)[] = [];

  constructor(
    readonly max: number | undefined,
    /** What the build was charged before its assets started (planning's `workflows list`): spent, within the cap. */
    spentBefore = 0,
  ) {
    this.#spentByEnded = spentBefore;
  }

  /** Spent or held: each running asset counts at the larger of its reservation and its spending. */
  get committed(): number {
    let total = this.#spentByEnded;
    for (const share of this.#running) total += Math.max(share.reserved, share.spent);
    return total;
  }

  /** What every asset, ended or running, has been charged in this build. */
  get spent(): number {
    let total = this.#spentByEnded;
    for (const share of this.#running) total += share.spent;
    return total;
  }

  /** What a poll is expected to cost, from the answers so far. */
  get pollPrice(): number {
    return this.#pollPrice ?? 1;
  }

  /**
   * Whether a refusal of `cost` may be lifted once running assets end: some of them hold more than
   * they have spent so far (a reservation at a declared or recorded price above what the service
   * then charged), and what is really spent leaves room. Then the asset waits (`ended()`) instead
   * of being held back for credits nobody will spend.
   */
  mayFitLater(cost: number | null): boolean {
    if (this.max === undefined || cost === null) return false;
    let slack = false;
    for (const share of this.#running) if (share.reserved > share.spent) slack = true;
    return slack && this.spent + cost <= this.max;
  }

  /** Resolves when the next running asset ends (its reservation's unspent part free again). */
  ended(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** A poll was answered with this charge. */
  learnPollPrice(charged: number): void {
    this.#pollPrice = Math.max(this.#pollPrice ?? 0, charged);
  }

  /**
   * Holds `cost` (null: unknown) for an asset about to start, or says why it may not. A resume or
   * a fixed-price submission passes its known cost; its polls then ask one by one (Reservation.allow).
   */
  start(cost: number | null): Reservation | CapRefusal {
    if (this.max !== undefined) {
      if (cost === null) return { kind: 'unknown-cost', max: this.max };
      const committed = this.committed;
      if (committed + cost > this.max) return { kind: 'over-cap', needed: cost, committed, max: this.max };
    }
    const share = { reserved: cost ?? 0, spent: 0 };
    this.#running.add(share);
    let ended = false;
    return {
      get spent() {
        return share.spent;
      },
      allow: (price) => {
        if (this.max === undefined || share.spent + price <= share.reserved) return undefined;
        const committed = this.committed;
        const more = share.spent + price - Math.max(share.reserved, share.spent);
        if (committed + more > this.max) return { kind: 'over-cap', needed: price, committed, max: this.max };
        share.reserved = share.spent + price;
        return undefined;
      },
      charged: (amount) => {
        share.spent += amount;
      },
      release: () => {
        if (ended) return;
        ended = true;
        this.#running.delete(share);
        this.#spentByEnded += share.spent;
        for (const wake of this.#waiting.splice(0)) wake();
      },
    };
  }
}

export const isRefusal = (value: Reservation | CapRefusal): value is CapRefusal => 'kind' in value;

/**
 * One line for people: why the cap held an asset back; `cap` names it as the reader set it
 * (`--max-credits 5`, `` `budget: 5` in assetgen.yaml ``).
 */
export function describeRefusal(refusal: CapRefusal, cap: string): string {
  if (refusal.kind === 'unknown-cost')
    return `its price is unknown (none observed in assetgen.lock or on this machine, none declared under \`prices:\`), so it could pass ${cap}`;
  if (refusal.kind === 'declared-price-exceeded')
    return `${refusal.name} charged ${refusal.charged} credits a call where \`prices:\` declares ${refusal.declared}: nothing more of it is sent under ${cap} (its price is now known: build again)`;
  return `would pass ${cap} (${refusal.committed} spent or held, ${refusal.needed} more)`;
}

/** What DeclaredPriceCheck says of an asset about to start. */
export type PriceAdmission =
  /** Start it with this estimate (the declared one, or the price its agent's first answer gave). */
  | { go: true; estimate: number | null; takePrice?: number | null }
  /** Its agent or workflow charged more than declared: it is held back. */
  | { go: false; refusal: CapRefusal }
  /** The first call of its agent or workflow is in flight: it waits for that answer. */
  | 'wait';

/**
 * Under a cap, the agents and workflows whose price the plan has only from the manifest's
 * `prices` (declared, never observed): the first asset of each goes alone — nothing else of that
 * agent in flight — and its answer replaces the declaration; an answer above it stops that agent
 * at once. So a wrong declaration passes the cap by at most one call's difference (the charge minus
 * the declaration) for each agent or workflow declared too low.
 */
export class DeclaredPriceCheck {
  readonly #checks = new Map<string, { name: string; declared: number; inFlight: string | undefined; answer?: number }>();
  #wake: (() => void)[] = [];

  constructor(
    items: readonly PlanItem[],
    readonly max: number,
  ) {
    for (const item of items) {
      const declared = item.takes ? item.takePrice : item.estimate;
      if (item.priceSource !== 'declared' || typeof declared !== 'number') continue;
      const name = (item.kind === 'workflow' ? item.workflow : item.agent) ?? '';
      if (!this.#checks.has(chargeKey(item))) this.#checks.set(chargeKey(item), { name, declared, inFlight: undefined });
    }
  }

  /** Whether `item` may start now, and with what estimate; a `go` for the first of its agent makes it the one in flight. */
  admit(item: PlanItem): PriceAdmission {
    const check = this.#checks.get(chargeKey(item));
    if (!check || item.priceSource !== 'declared') return { go: true, estimate: item.estimate, takePrice: item.takePrice };
    if (check.answer === undefined) {
      if (check.inFlight !== undefined) return 'wait';
      check.inFlight = item.id;
      return { go: true, estimate: item.estimate, takePrice: item.takePrice };
    }
    if (check.answer > check.declared) return { go: false, refusal: this.#exceeded(check) };
    // The first answer replaces the declaration: each take (or the one call) at the price charged.
    if (!item.takes) return { go: true, estimate: item.estimate === null ? null : check.answer, takePrice: item.takePrice };
    const calls = item.takePrice ? Math.round((item.estimate ?? 0) / item.takePrice) : item.takes.length;
    return { go: true, estimate: calls * check.answer, takePrice: check.answer };
  }

  /**
   * A paid call of `item` was answered with what one call of its agent costs: the first answer
   * settles the price. A refusal when its agent is stopped (this answer, or an earlier one, charged
   * more than declared): the asset makes no further paid call.
   */
  answered(item: PlanItem, price: number): CapRefusal | undefined {
    const check = this.#checks.get(chargeKey(item));
    if (!check) return undefined;
    if (check.answer === undefined) {
      check.answer = price;
      this.#changed();
    }
    return check.answer > check.declared ? this.#exceeded(check) : undefined;
  }

  /** Before a further paid call of `item` (its next take): a refusal once its agent is stopped. */
  refusal(item: PlanItem): CapRefusal | undefined {
    const check = this.#checks.get(chargeKey(item));
    return check?.answer !== undefined && check.answer > check.declared ? this.#exceeded(check) : undefined;
  }

  /** `item` ended (or did not start): when it was its agent's first and no answer came, the next one may go. */
  ended(item: PlanItem): void {
    const check = this.#checks.get(chargeKey(item));
    if (check?.inFlight !== item.id) return;
    check.inFlight = undefined;
    this.#changed();
  }

  /** Resolves at the next answer or end of a first call: an asset waiting may then be admitted. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#wake.push(resolve));
  }

  #changed(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }

  #exceeded(check: { name: string; declared: number; answer?: number }): CapRefusal {
    return { kind: 'declared-price-exceeded', name: check.name, declared: check.declared, charged: check.answer!, max: this.max };
  }
}
