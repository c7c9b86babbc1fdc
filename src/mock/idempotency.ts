// What the mock remembers of each Idempotency-Key: just what a replay needs (the request's
// fingerprint, status, the headers that are not per-call, the body text), and only so much of
// it — the newest `maxKeys` answers, none older than `maxAgeMs` — so memory stays flat under a
// client that sends a fresh key with every call. A key forgotten is a new request again.

export interface IdempotencyLimits {
  /** Answers kept: the oldest goes first beyond this. */
  maxKeys: number;
  /** How long an answer is kept after it was stored (ms). */
  maxAgeMs: number;
}

/** As Stripe keeps keys: a day; and ten thousand of them, a few MiB. */
export const DEFAULT_IDEMPOTENCY_LIMITS: IdempotencyLimits = { maxKeys: 10_000, maxAgeMs: 24 * 60 * 60 * 1000 };

export interface StoredAnswer {
  /** Of the request that made it (endpoint, path parameters, body): another request with the key is refused. */
  readonly fingerprint: string;
  readonly status: number;
  /** The answer's own headers, without the per-call ones a replay sets afresh. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
  /** When it was stored (the store's clock, ms). */
  readonly storedAt: number;
}

/** A stored answer knows its key (for eviction in storage order). */
interface Kept extends StoredAnswer {
  readonly key: string;
}

/** Headers every answer gets per call (a replay sets its own); content-length belongs to the transport. */
const PER_CALL = new Set(['x-request-id', 'x-credits-charged', 'x-credits-remaining', 'content-length']);
/** Answers share few header sets (a content type, a poll hint): each kept once, up to a bound. */
const SHARED_HEADER_SETS = 64;

export class IdempotencyStore {
  /** Keys whose first request is still running (a duplicate gets 409 meanwhile). */
  readonly #inFlight = new Set<string>();
  readonly #answers = new Map<string, Kept>();
  /**
   * The same answers, oldest first, from `#head` on. Not the Map's own order: a Map iterated from
   * its start walks over every slot deleted since its last rehash — 30 µs a call at 10,000 keys.
   */
  #queue: Kept[] = [];
  #head = 0;
  readonly #headerSets = new Map<string, readonly (readonly [string, string])[]>();

  /** `limits` is read at each use (the mock's settings change at run time); `clock` is injectable for tests. */
  constructor(
    private readonly limits: () => IdempotencyLimits = () => DEFAULT_IDEMPOTENCY_LIMITS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Answers kept, plus keys in flight. */
  get size(): number {
    return this.#answers.size + this.#inFlight.size;
  }

  /** The stored answer, 'in-flight' while its first request runs, or undefined (never seen, or forgotten). */
  lookup(key: string): StoredAnswer | 'in-flight' | undefined {
    if (this.#inFlight.has(key)) return 'in-flight';
    this.#evict();
    return this.#answers.get(key);
  }

  begin(key: string): void {
    this.#inFlight.add(key);
  }

  /** The first request failed or was refused: the key may be used again. */
  abandon(key: string): void {
    this.#inFlight.delete(key);
  }

  store(key: string, fingerprint: string, status: number, headers: Record<string, string>, body: string): void {
    this.#inFlight.delete(key);
    const answer: Kept = { key, fingerprint, status, headers: this.#shared(headers), body, storedAt: this.clock() };
    this.#answers.set(key, answer);
    this.#queue.push(answer);
    this.#evict();
  }

  clear(): void {
    this.#inFlight.clear();
    this.#answers.clear();
    this.#queue = [];
    this.#head = 0;
  }

  /** Oldest first: those past their age, then those beyond the count. */
  #evict(): void {
    const { maxKeys, maxAgeMs } = this.limits();
    const oldest = this.clock() - maxAgeMs;
    while (this.#head < this.#queue.length) {
      const answer = this.#queue[this.#head];
      const { key } = answer;
      // An entry whose key was stored again since is stale: its answer is no longer the key's.
      const current = this.#answers.get(key) === answer;
      if (current && answer.storedAt > oldest && this.#answers.size <= maxKeys) break;
      if (current) this.#answers.delete(key);
      this.#head += 1;
    }
    // Drop the spent front now and then (not per call: a shift per call is linear).
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  #shared(headers: Record<string, string>): readonly (readonly [string, string])[] {
    let id = '';
    for (const name in headers) if (!PER_CALL.has(name)) id += `${name}\n${headers[name]}\n`;
    const known = this.#headerSets.get(id);
    if (known) return known;
    const own = Object.entries(headers).filter(([name]) => !PER_CALL.has(name));
    if (this.#headerSets.size < SHARED_HEADER_SETS) this.#headerSets.set(id, own);
    return own;
  }
}
