// A build's credit cap (--max-credits, or the manifest's `budget`): pure bookkeeping over what the
// service's answers say each asset was charged. The build loop asks before every charged call —
// an asset's paid submission and each of its polls — so the ledger never passes the cap for a
// price that was known: nothing is submitted whose cost is unknown (docs/build.md, "Credits").

/** Why an asset or a call may not go ahead. */
export type CapRefusal =
  /** Its price is known, and it does not fit in what is left. */
  | { kind: 'over-cap'; needed: number; committed: number; max: number }
  /** Nothing recorded says what it costs (a first build of an agent or workflow): it could pass any cap. */
  | { kind: 'unknown-cost'; max: number };

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

  constructor(readonly max: number | undefined) {}

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
      },
    };
  }
}

export const isRefusal = (value: Reservation | CapRefusal): value is CapRefusal => 'kind' in value;

/** One line for people: why the cap held an asset back; `cap` names it as the reader set it (`--max-credits 5`). */
export function describeRefusal(refusal: CapRefusal, cap: string): string {
  return refusal.kind === 'unknown-cost'
    ? `its price is unknown (nothing recorded for its agent or workflow yet), so it could pass ${cap}`
    : `would pass ${cap} (${refusal.committed} spent or held, ${refusal.needed} more)`;
}
