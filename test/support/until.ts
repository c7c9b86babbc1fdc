// Waiting in a test for something another process does (a held call, a ledger line, a journal
// record): polled, and bounded in count and time, so a regression fails instead of hanging.

/** Polls `check` (at most 300 tries over 15 s) until it returns something truthy; returns that. */
export async function until<T>(what: string, check: () => Promise<T> | T, everyMs = 50): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 300 && Date.now() < deadline; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`not seen in time: ${what}`);
}
