// How long the mock remembers an Idempotency-Key: the newest `maxKeys` answers, none older than
// `maxAgeMs`; a key forgotten is a new request. The store alone (an injected clock), the service's
// real routes in process (the same clock, a day later), and a real socket with a small bound.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type MockRequest } from '../../src/mock/exchange.js';
import { IdempotencyStore } from '../../src/mock/idempotency.js';
import { createService } from '../../src/mock/service.js';
import { expectErrorShape, startMock, type MockHandle } from '../support/mock.js';

const DAY = 24 * 60 * 60 * 1000;
const GENERATE = { agentId: 'sprite-artist', prompt: 'rusty sword' };

describe('the store', () => {
  const headers = { 'content-type': 'application/json', 'x-request-id': 'req_1', 'x-credits-charged': '10', 'x-credits-remaining': '90' };
  const make = (limits: { maxKeys: number; maxAgeMs: number }) => {
    let now = 1_000_000;
    const store = new IdempotencyStore(
      () => limits,
      () => now,
    );
    return { store, advance: (ms: number) => (now += ms) };
  };

  it('keeps the newest maxKeys answers: the oldest goes first', () => {
    const { store } = make({ maxKeys: 3, maxAgeMs: DAY });
    for (const key of ['a', 'b', 'c', 'd']) store.store(key, `fp-${key}`, 201, headers, `{"id":"${key}"}`);
    expect(store.lookup('a')).toBeUndefined();
    for (const key of ['b', 'c', 'd']) expect(store.lookup(key)).toMatchObject({ fingerprint: `fp-${key}`, body: `{"id":"${key}"}` });
    expect(store.size).toBe(3);
  });

  it('keeps none older than maxAgeMs after it was stored', () => {
    const { store, advance } = make({ maxKeys: 10, maxAgeMs: 1000 });
    store.store('a', 'fp', 201, headers, 'a');
    advance(500);
    store.store('b', 'fp', 201, headers, 'b');
    advance(499);
    expect(store.lookup('a')).toMatchObject({ body: 'a' });
    advance(1);
    expect(store.lookup('a')).toBeUndefined();
    expect(store.lookup('b')).toMatchObject({ body: 'b' });
    advance(500);
    expect(store.lookup('b')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('never forgets a key in flight, and forgets an abandoned one', () => {
    const { store, advance } = make({ maxKeys: 1, maxAgeMs: 10 });
    store.begin('running');
    for (const key of ['a', 'b', 'c']) store.store(key, 'fp', 201, headers, key);
    advance(1_000);
    expect(store.lookup('running')).toBe('in-flight');
    store.abandon('running');
    expect(store.lookup('running')).toBeUndefined();
  });

  it('keeps only what a replay needs: no per-call headers, one shared copy of a header set', () => {
    const { store } = make({ maxKeys: 10, maxAgeMs: DAY });
    store.store('a', 'fp', 201, headers, 'a');
    store.store('b', 'fp', 202, { ...headers, 'retry-after': '1', 'content-length': '1' }, 'b');
    store.store('c', 'fp', 201, { ...headers, 'x-request-id': 'req_2' }, 'c');
    const [a, b, c] = ['a', 'b', 'c'].map((key) => store.lookup(key));
    expect(a).toMatchObject({ status: 201, headers: [['content-type', 'application/json']] });
    expect(b).toMatchObject({
      status: 202,
      headers: [
        ['content-type', 'application/json'],
        ['retry-after', '1'],
      ],
    });
    expect(typeof c === 'object' && typeof a === 'object' && c.headers === a.headers).toBe(true);
  });
});

describe("the service's routes, a day later (injected clock)", () => {
  const request = (key: string, body: unknown, apiKey: string): MockRequest => ({
    method: 'POST',
    origin: 'http://mock.test',
    path: '/api/v1/generate',
    header: (name) => ({ authorization: `Bearer ${apiKey}`, 'idempotency-key': key })[name],
    text: () => Promise.resolve(JSON.stringify(body)),
  });

  it('replays within 24 h; after it, the same key runs and is charged again, and another body is no longer a 422', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const service = createService({ clock: () => now });
    const send = async (key: string, body: unknown) => {
      const response = (await service.dispatch(request(key, body, service.apiKey)))!;
      return { ...response, json: JSON.parse(String(response.body)) };
    };
    const first = await send('k', GENERATE);
    expect(first.status).toBe(201);
    now += DAY - 1;
    const replay = await send('k', GENERATE);
    expect(replay).toMatchObject({ status: 201, body: first.body });
    expect(replay.headers).toMatchObject({ 'idempotent-replayed': 'true', 'x-credits-charged': '0', 'x-credits-remaining': '990' });
    expect(replay.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect((await send('k', { ...GENERATE, prompt: 'other' })).status).toBe(422);
    now += 1;
    const again = await send('k', GENERATE);
    expect(again.status).toBe(201);
    expect(again.json.id).not.toBe(first.json.id);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['x-credits-charged']).toBe('10');
    now += DAY;
    expect((await send('k', { ...GENERATE, prompt: 'other' })).status).toBe(201);
    expect(service.state.ledger.map((entry) => [entry.amount, entry.idempotencyKey])).toEqual([
      [-10, 'k'],
      [-10, 'k'],
      [-10, 'k'],
    ]);
  });
});

describe('over a socket, with a bound of two keys', () => {
  let mock: MockHandle;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(async () => {
    await mock.close();
  });
  beforeEach(async () => {
    await mock.reset();
    await mock.config({ idempotency: { maxKeys: 2 } });
  });
  const post = (key: string, body: unknown = GENERATE, path = '/api/v1/generate', auth: 'key' | 'session' = 'key') =>
    mock.call('POST', path, { auth, body, headers: { 'idempotency-key': key } });

  it('the two newest replay as before; the third oldest runs again, charged, as a new request', async () => {
    const first = { a: await post('a'), b: await post('b'), c: await post('c') };
    for (const key of ['b', 'c'] as const) {
      const credits = (await mock.state()).credits;
      const replay = await post(key);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first[key].text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('x-credits-charged')).toBe('0');
      expect(replay.headers.get('x-credits-remaining')).toBe(String(credits));
      expect(replay.headers.get('x-request-id')).not.toBe(first[key].headers.get('x-request-id'));
    }
    const again = await post('a');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.json.id).not.toBe(first.a.json.id);
    const { ledger, config } = await mock.state();
    expect(config.idempotency).toEqual({ maxKeys: 2, maxAgeMs: DAY });
    expect(ledger.map((entry) => entry.idempotencyKey)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('a stream in flight keeps its 409 however many keys come after it; cut off, it replays', async () => {
    await mock.config({ streamStepMs: 5_000 });
    const controller = new AbortController();
    const stream = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      signal: controller.signal,
      headers: { cookie: mock.cookie, 'content-type': 'application/json', 'idempotency-key': 's' },
      body: JSON.stringify(GENERATE),
    });
    await stream.body!.getReader().read();
    for (const key of ['a', 'b', 'c']) expect((await post(key)).status).toBe(201);
    const duplicate = await post('s', GENERATE, '/api/ai/stream', 'session');
    expect(duplicate.status).toBe(409);
    expectErrorShape(duplicate.json, 'idempotency_in_progress');
    controller.abort();
    let replay = duplicate;
    for (let i = 0; i < 50 && replay.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      replay = await post('s', GENERATE, '/api/ai/stream', 'session');
    }
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toMatch(/event: done\n/);
  });

  it('refuses bad bounds with 400', async () => {
    for (const idempotency of [{ maxKeys: 0 }, { maxAgeMs: 1.5 }, { maxKeys: '2' }, { other: 1 }, [], 'x']) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ idempotency }),
      });
      expect(response.status, JSON.stringify(idempotency)).toBe(400);
    }
  });
});
