// The mock's ledger, read as a build's truth: every charge attributed to the paid call that caused
// it (by the Idempotency-Key the mock records on a paid POST; polls and refunds by the job id that
// POST created), and what the lock says each asset cost, side by side.
import path from 'node:path';
import { idempotencyKeyFor } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';

export interface LedgerEntry {
  amount: number;
  reason: string;
  at: string;
  idempotencyKey?: string;
}

/** Net spending (charges minus refunds) per idempotency key; `unattributed` for everything else. */
export function spendByKey(ledger: LedgerEntry[]): Map<string, number> {
  const keyOfJob = new Map<string, string>();
  for (const entry of ledger) {
    const job = /^(?:run|video) (\S+)/.exec(entry.reason)?.[1];
    if (job && entry.idempotencyKey) keyOfJob.set(job, entry.idempotencyKey);
  }
  const spend = new Map<string, number>();
  for (const entry of ledger) {
    const job = /^(?:poll|refund) (\S+)/.exec(entry.reason)?.[1];
    const key = entry.idempotencyKey ?? (job ? keyOfJob.get(job) : undefined) ?? 'unattributed';
    spend.set(key, (spend.get(key) ?? 0) - entry.amount);
  }
  return spend;
}

/** Net spending in a ledger (or a slice of one). */
export const netSpend = (ledger: LedgerEntry[]): number => 0 - ledger.reduce((sum, entry) => sum + entry.amount, 0);

/**
 * For each finished asset of the project's lock: [what the lock says it cost, what the ledger says
 * its key cost]. The key is derived again from the lock (id, spec, generation), as the build did;
 * an asset with takes has a row for the sum and one per take (`<id> take <k>`).
 */
export function lockVersusLedger(projectDir: string, ledger: LedgerEntry[], lockFile = 'assetgen.lock'): Record<string, [unknown, number]> {
  const lock = readLock(path.join(projectDir, lockFile));
  const byKey = spendByKey(ledger);
  const rows: Record<string, [unknown, number]> = {};
  for (const [id, entry] of Object.entries(lock.assets)) {
    if (!entry.spec || entry.generation === undefined) continue;
    // An asset with takes: each take its own key (take k of this generation), the cost their sum.
    const takes = entry.candidates?.map((take) => take.k) ?? [1];
    const keys = takes.map((k) => idempotencyKeyFor(id, entry.spec!, entry.generation!, k));
    rows[id] = [entry.credits, keys.reduce((sum, key) => sum + (byKey.get(key) ?? 0), 0)];
    for (const take of entry.candidates ?? [])
      rows[`${id} take ${take.k}`] = [take.credits, byKey.get(idempotencyKeyFor(id, entry.spec, entry.generation, take.k)) ?? 0];
  }
  return rows;
}

/** The rows whose two figures differ (empty when the lock agrees with the ledger). */
export const disagreements = (rows: Record<string, [unknown, number]>): Record<string, [unknown, number]> =>
  Object.fromEntries(Object.entries(rows).filter(([, [lock, ledger]]) => lock !== ledger));

/** Runs `work`; returns its result and what the ledger gained meanwhile (charges, net spend). */
export async function ledgerOf<T>(
  service: { ledger(): Promise<LedgerEntry[]> },
  work: () => Promise<T>,
): Promise<{ result: T; charges: number; spent: number }> {
  const before = (await service.ledger()).length;
  const result = await work();
  const added = (await service.ledger()).slice(before);
  return { result, charges: added.filter((entry) => entry.amount < 0).length, spent: netSpend(added) };
}
