// The mock's credentials: API keys stored only as their sha256 (the plaintext leaves once, at
// issue), sessions likewise, and every lookup a constant-time comparison against each stored hash.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, SESSION_COOKIE_NAME } from './constants.js';

export interface Principal {
  kind: 'apiKey' | 'session';
  /** Stable id of the credential (hash prefix), for idempotency scoping; never the secret. */
  id: string;
}

/** An issued key: its hash, whether revoked, and the principal it authenticates as (made once). */
interface KeyEntry {
  hash: Buffer;
  revoked: boolean;
  readonly principal: Principal;
}

// One-shot: a Hash object per request cost more than the digest itself.
const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');

export class CredentialBook {
  /** sha256 of each issued key → revoked? Plaintext keys are never kept. */
  readonly #keys = new Map<string, KeyEntry>();
  readonly #sessions = new Map<string, Buffer>();

  /** Issues a key; the plaintext is returned once and only its hash is stored. */
  issueApiKey(): string {
    const key = `${API_KEY_PREFIX}${randomBytes(20).toString('hex')}`;
    const digest = sha256(key);
    const principal: Principal = { kind: 'apiKey', id: `key_${digest.toString('hex').slice(0, 12)}` };
    this.#keys.set(digest.toString('hex'), { hash: digest, revoked: false, principal });
    return key;
  }

  revokeApiKey(key: string): boolean {
    const entry = this.#findKey(key);
    if (!entry) return false;
    entry.revoked = true;
    return true;
  }

  /** Issues a session; returns the cookie as `name=value`. */
  issueSession(): string {
    const token = randomBytes(24).toString('base64url');
    this.#sessions.set(sha256(token).toString('hex'), sha256(token));
    return `${SESSION_COOKIE_NAME}=${token}`;
  }

  /** 'ok' with the principal, or why the key is refused. */
  checkApiKey(key: string): Principal | 'malformed' | 'unknown' | 'revoked' {
    if (!key.startsWith(API_KEY_PREFIX) || key.length < API_KEY_PREFIX.length + 16 || /\s/.test(key)) return 'malformed';
    const entry = this.#findKey(key);
    if (!entry) return 'unknown';
    if (entry.revoked) return 'revoked';
    return entry.principal;
  }

  checkSession(token: string): Principal | 'unknown' {
    const hash = sha256(token);
    for (const stored of this.#sessions.values()) {
      if (timingSafeEqual(stored, hash)) return { kind: 'session', id: `ses_${hash.toString('hex').slice(0, 12)}` };
    }
    return 'unknown';
  }

  /** Compares hashes in constant time (the map lookup alone would leak timing on the key). */
  #findKey(key: string): KeyEntry | undefined {
    const digest = sha256(key);
    let found: KeyEntry | undefined;
    for (const entry of this.#keys.values()) {
      if (timingSafeEqual(entry.hash, digest)) found = entry;
    }
    return found;
  }
}
