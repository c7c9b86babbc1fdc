// What a command spent: every charged call of the command summed (submission and polls), refunds,
// the balance from the last response that reported one, and the charged calls whose answer never
// came (their charge is not known). `--json` prints it as `credits`.
import type { Credits } from '../client/types.js';

/** The `credits` object of every `--json` document and error (docs/cli.md, "Credits"). */
export interface CreditsReport {
  charged: number;
  refunded: number;
  /** null until the service has reported a balance. */
  balance: number | null;
  /**
   * Calls whose charge is not known (absent when every charge is): a poll made with an API key that
   * got no answer — the wait stopped while it was out, or its connection was lost — may still be
   * charged by the service; so may each attempt of a poll (or any call without an Idempotency-Key
   * made with the key) that the client asked again after its connection dropped
   * (Credits.unknownCharges). `charged` is then at least what it says, `balance` at most.
   */
  unknownCharges?: number;
}

export class CreditTally {
  #charged = 0;
  #refunded = 0;
  #balance: number | null = null;
  /** undefined until a replay says what its original call was charged: "no replay said" is not 0. */
  #paidEarlier: number | undefined;
  #unknownCharges = 0;

  /** Adds what one response reported: its charge, and the charges of its lost attempts as not known. */
  add(credits: Credits | undefined): void {
    if (credits?.charged !== undefined) this.#charged += credits.charged;
    if (credits?.paidEarlier !== undefined) this.#paidEarlier = (this.#paidEarlier ?? 0) + credits.paidEarlier;
    if (credits?.remaining !== undefined) this.#balance = credits.remaining;
    if (credits?.unknownCharges) this.#unknownCharges += credits.unknownCharges;
  }

  /**
   * What replayed answers say their original calls were charged (not this command's spending: a
   * build adds it to an asset's cost when its lock did not record that charge); undefined when no
   * answer said it — none was a replay, or a replay did not restate its original charge (a service
   * with credits in `X-Credits-*` headers only): never read as 0.
   */
  get paidEarlier(): number | undefined {
    return this.#paidEarlier;
  }

  refund(amount: number): void {
    this.#refunded += amount;
  }

  get report(): CreditsReport {
    const report: CreditsReport = { charged: this.#charged, refunded: this.#refunded, balance: this.#balance };
    if (this.#unknownCharges) report.unknownCharges = this.#unknownCharges;
    return report;
  }
}

/**
 * "an attempt got no answer", "2 attempts got no answer": the calls of unknown charge
 * (CreditsReport.unknownCharges) — a poll stopped while out, or an attempt the client asked again.
 */
const noAnswer = (count: number): string => `${count === 1 ? 'an attempt' : `${count} attempts`} got no answer`;

/**
 * What a report's calls of unknown charge mean, in words (undefined when there are none), for a
 * message about a stopped poll (a hint, a still-running answer): "An attempt got no answer: the
 * service may still charge it (not counted in the credits reported)."
 */
export function unknownChargesNote(report: CreditsReport): string | undefined {
  const count = report.unknownCharges;
  if (!count) return undefined;
  const text = `${noAnswer(count)}: the service may still charge ${count === 1 ? 'it' : 'them'} (not counted in the credits reported).`;
  return `${text[0].toUpperCase()}${text.slice(1)}`;
}

/**
 * A credits report in words: "Charged 10 credits; 990 remaining.", or undefined when nothing is
 * known. With a charge not known: "Charged at least 10 credits (an attempt got no answer: its charge is
 * not known); at most 990 remaining." ("No charge known (…)" when none was.)
 */
export function creditsLine(report: CreditsReport): string | undefined {
  const parts: string[] = [];
  const unknown = report.unknownCharges ?? 0;
  if (unknown)
    parts.push(
      `${report.charged ? `charged at least ${plural(report.charged, 'credit')}` : 'no charge known'} (${noAnswer(unknown)}: ${unknown === 1 ? 'its charge is' : 'their charges are'} not known)`,
    );
  else if (report.charged) parts.push(`Charged ${plural(report.charged, 'credit')}`);
  if (report.refunded) parts.push(`refunded ${report.refunded}`);
  if (report.balance !== null) parts.push(`${unknown ? 'at most ' : ''}${report.balance} remaining`);
  if (!parts.length) return undefined;
  const text = parts.join('; ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
