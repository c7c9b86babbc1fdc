// A paid request whose answer was lost (connection dropped, server error after retries, Ctrl-C)
// may still have been carried out and charged. Every paid command sends an Idempotency-Key and,
// when the outcome is unknown, tells the user how to ask again without paying twice.
import { randomUUID } from 'node:crypto';
import { AbortedError, AssetgenError, ConnectionError, RateLimitError, ServerError, TimeoutError } from '../client/errors.js';
import { UsageError } from './errors.js';

export async function paidCall<T>(providedKey: string | undefined, call: (idempotencyKey: string) => Promise<T>): Promise<T> {
  if (providedKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(providedKey)) {
    throw new UsageError('Invalid --idempotency-key: use 1-255 visible ASCII characters.');
  }
  const key = providedKey ?? randomUUID();
  try {
    return await call(key);
  } catch (error) {
    if (!outcomeUnknown(error)) throw error;
    const hint = [
      (error as AssetgenError).hint,
      `The service may have done this (and charged for it) before the answer was lost. Run the same command again with --idempotency-key ${key} to get that result without paying twice.`,
    ]
      .filter(Boolean)
      .join('\n');
    const failure = error as AssetgenError;
    if (failure instanceof AbortedError) throw new AbortedError(failure.message, hint);
    if (failure instanceof TimeoutError) throw new TimeoutError(failure.message, hint);
    throw new AssetgenError(failure.message, { code: failure.code, hint, cause: failure });
  }
}

/** Failures after which the request may or may not have been carried out. */
function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof ConnectionError ||
    error instanceof ServerError ||
    error instanceof RateLimitError ||
    error instanceof TimeoutError ||
    error instanceof AbortedError
  );
}
