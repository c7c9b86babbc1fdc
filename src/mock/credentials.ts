// The mock's credentials: API keys stored only as their sha256 (the plaintext leaves once, at
// issue), sessions likewise, and every lookup a constant-time comparison against each stored hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, SESSION_COOKIE_NAME } from './constants.js';

export interface Principal {
  kind: 'apiKey' | 'session';
  /** Stable id of the credential (hash prefix), for idempotency scoping; never the secret. */
  id: string;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export class CredentialBook {
  /** sha256 of each issued key → revoked? Plaintext keys are never kept. */
  readonly #keys = new Map<string, { hash: Buffer; revoked: boolean }>();
  readonly #sessions = new Map<string, Buffer>();

  /** Issues a key; the plaintext is returned once and only its hash is stored. */
  issueApiKey(): string {
    const key = `${API_KEY_PREFIX}${randomBytes(20).toString('hex')}`;
    const hash = sha256(key);
    this.#keys.set(hash.toString('hex'), { hash, revoked: false });
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
    return { kind: 'apiKey', id: `key_${entry.hash.toString('hex').slice(0, 12)}` };
  }

  checkSession(token: string): Principal | 'unknown' {
    const hash = sha256(token);
    for (const stored of this.#sessions.values()) {
      if (timingSafeEqual(stored, hash)) return { kind: 'session', id: `ses_${hash.toString('hex').slice(0, 12)}` };
    }
    return 'unknown';
  }

  /** Compares hashes in constant time (the map lookup alone would leak timing on the key). */
  #findKey(key: string): { hash: Buffer; revoked: boolean } | undefined {
    const hash = sha256(key);
    let found: { hash: Buffer; revoked: boolean } | undefined;
    for (const entry of this.#keys.values()) {
      if (timingSafeEqual(entry.hash, hash)) found = entry;
    }
    return found;
  }
}
