// What a command spent: every charged call of the command summed (submission and polls), refunds,
// and the balance from the last response that reported one. `--json` prints it as `credits`.
import type { Credits } from '../client/types.js';

/** The `credits` object of every `--json` document and error (docs/cli.md, "Credits"). */
export interface CreditsReport {
  charged: number;
  refunded: number;
  /** null until the service has reported a balance. */
  balance: number | null;
}

export class CreditTally {
  #charged = 0;
  #refunded = 0;
  #balance: number | null = null;
  #paidEarlier = 0;

  /** Adds what one response reported. */
  add(credits: Credits | undefined): void {
    if (credits?.charged !== undefined) this.#charged += credits.charged;
    if (credits?.paidEarlier !== undefined) this.#paidEarlier += credits.paidEarlier;
    if (credits?.remaining !== undefined) this.#balance = credits.remaining;
  }

  /**
   * What replayed answers say their original calls were charged (not this command's spending: a
   * build adds it to an asset's cost when its lock did not record that charge).
   */
  get paidEarlier(): number {
    return this.#paidEarlier;
  }

  refund(amount: number): void {
    this.#refunded += amount;
  }

  get report(): CreditsReport {
    return { charged: this.#charged, refunded: this.#refunded, balance: this.#balance };
  }
}

/** A credits report in words: "Charged 10 credits; 990 remaining.", or undefined when nothing is known. */
export function creditsLine(report: CreditsReport): string | undefined {
  const parts: string[] = [];
  if (report.charged) parts.push(`Charged ${plural(report.charged, 'credit')}`);
  if (report.refunded) parts.push(`refunded ${report.refunded}`);
  if (report.balance !== null) parts.push(`${report.balance} remaining`);
  if (!parts.length) return undefined;
  const text = parts.join('; ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
