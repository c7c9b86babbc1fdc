// API keys at unit level: the prefix is one constant, the plaintext leaves the state once and is
// never kept, and a key is found by comparing fixed-length hashes with crypto.timingSafeEqual
// against every stored key (no early exit, no lookup keyed by the secret).
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { API_KEY_PREFIX, SESSION_COOKIE_NAME } from '../../src/mock/constants.js';
import { MockState } from '../../src/mock/state.js';

// A spy on the builtin itself (synced into its ES-module bindings), not a module mock: the suite
// shares one module graph across files (vitest.config.ts, isolate: false).
let timingSafeEqual: MockInstance<typeof crypto.timingSafeEqual>;
beforeAll(() => {
  timingSafeEqual = vi.spyOn(crypto, 'timingSafeEqual');
  syncBuiltinESMExports();
});
afterAll(() => {
  timingSafeEqual.mockRestore();
  syncBuiltinESMExports();
});
afterEach(() => {
  timingSafeEqual.mockClear();
});

describe('API keys (MockState)', () => {
  it('start with the one prefix constant, and every issued key is new', () => {
    expect(API_KEY_PREFIX).toMatch(/^[a-z]+_$/);
    const state = new MockState();
    const keys = Array.from({ length: 20 }, () => state.credentials.issueApiKey());
    for (const key of keys) expect(key).toMatch(new RegExp(`^${API_KEY_PREFIX}[0-9a-f]{40}$`));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('are never kept in plaintext: not in the state object, its JSON, or its own properties', () => {
    const state = new MockState();
    const key = state.credentials.issueApiKey();
    const session = state.credentials.issueSession().split('=')[1]!;
    const everything =
      JSON.stringify(state) +
      JSON.stringify(Object.values(state)) +
      String(Object.getOwnPropertyNames(state).map((name) => String((state as never)[name])));
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice(API_KEY_PREFIX.length));
    expect(everything).not.toContain(session);
  });

  it('are compared as hashes with timingSafeEqual against every stored key, whatever matches', () => {
    const state = new MockState();
    const keys = Array.from({ length: 5 }, () => state.credentials.issueApiKey());
    for (const candidate of [keys[0]!, keys[4]!, `${API_KEY_PREFIX}${'0'.repeat(40)}`, `${API_KEY_PREFIX}${'x'.repeat(500)}`]) {
      timingSafeEqual.mockClear();
      state.credentials.checkApiKey(candidate);
      // One constant-time comparison per stored key: the first key and an unknown key cost the same.
      expect(timingSafeEqual).toHaveBeenCalledTimes(keys.length);
      for (const [a, b] of timingSafeEqual.mock.calls) {
        expect((a as Buffer).length).toBe(32);
        expect((b as Buffer).length).toBe(32);
      }
    }
  });

  it('accept the exact key only; malformed, unknown and revoked keys are told apart', () => {
    const state = new MockState();
    const key = state.credentials.issueApiKey();
    const other = state.credentials.issueApiKey();
    expect(state.credentials.checkApiKey(key)).toMatchObject({ kind: 'apiKey', id: expect.stringMatching(/^key_[0-9a-f]{12}$/) });
    expect(state.credentials.checkApiKey(key)).not.toEqual(state.credentials.checkApiKey(other));
    const flipped = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    expect(state.credentials.checkApiKey(flipped)).toBe('unknown');
    expect(state.credentials.checkApiKey(`${key}0`)).toBe('unknown');
    expect(state.credentials.checkApiKey(key.toUpperCase())).toBe('malformed');
    expect(state.credentials.checkApiKey('sk_live_something_else_entirely')).toBe('malformed');
    expect(state.credentials.checkApiKey(`${API_KEY_PREFIX}short`)).toBe('malformed');
    expect(state.credentials.checkApiKey('')).toBe('malformed');
    expect(state.credentials.revokeApiKey(flipped)).toBe(false);
    expect(state.credentials.revokeApiKey(key)).toBe(true);
    expect(state.credentials.checkApiKey(key)).toBe('revoked');
    expect(state.credentials.checkApiKey(other)).toMatchObject({ kind: 'apiKey' });
    // A reset keeps keys (and their revocation).
    state.reset();
    expect(state.credentials.checkApiKey(key)).toBe('revoked');
    expect(state.credentials.checkApiKey(other)).toMatchObject({ kind: 'apiKey' });
  });

  it('sessions: the cookie is name=value, checked by hash in constant time', () => {
    const state = new MockState();
    const cookie = state.credentials.issueSession();
    expect(cookie.startsWith(`${SESSION_COOKIE_NAME}=`)).toBe(true);
    const token = cookie.slice(SESSION_COOKIE_NAME.length + 1);
    timingSafeEqual.mockClear();
    expect(state.credentials.checkSession(token)).toMatchObject({ kind: 'session' });
    expect(timingSafeEqual).toHaveBeenCalled();
    expect(state.credentials.checkSession(`${token}x`)).toBe('unknown');
    expect(state.credentials.checkSession('')).toBe('unknown');
  });
});
