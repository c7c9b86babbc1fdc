// docs/mock-server.md "Admin API": /__mock/state, /reset and /config (merging, validating, seeding).
import { describe, expect, it } from 'vitest';
import { expectErrorShape } from '../../support/mock.js';
import { GENERATE, useContractMock } from './harness.js';

const mock = useContractMock();

describe('admin API', () => {
  it('resets to the seeded state, keeping keys valid, and validates config', async () => {
    await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    await mock.reset();
    const state = await mock.state();
    expect(state).toMatchObject({ credits: 1000, ledger: [], requests: 0 });
    expect((await mock.call('GET', '/api/v1/workflows')).status).toBe(200);
    for (const bad of [
      { credits: -1 },
      { videoOutcome: 'maybe' },
      { faults: { rate: 2 } },
      { faults: { kinds: ['boom'] } },
      { colour: 'red' },
    ]) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(bad),
      });
      expect(response.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await mock.config({ credits: 42, latencyMs: 0 })).toMatchObject({ credits: 42 });
  });

  it('state: credits, ledger, config, requests (public API calls only), runs, videos, streams', async () => {
    const state = await mock.state();
    expect(Object.keys(state).sort()).toEqual(['config', 'credits', 'held', 'ledger', 'requests', 'runs', 'streams', 'videos']);
    expect(state.requests).toBe(0);
    await mock.call('GET', '/api/v1/workflows');
    await mock.call('GET', '/api/v1/workflows', { auth: 'none' });
    const { json } = await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    await fetch(json.output.url);
    await mock.call('GET', '/api/v1/nothing');
    await mock.state();
    await mock.config({});
    const after = await mock.state();
    expect(after.requests).toBe(3);
    expect(after.ledger.map((e: { amount: number; reason: string; at: string }) => [e.amount, e.reason, typeof e.at])).toEqual([
      [-1, 'list workflows', 'string'],
      [-10, `generate ${json.id}`, 'string'],
    ]);
  });

  it('reset: seeded balance and settings back, records gone, keys and sessions still valid', async () => {
    const { apiKey } = (await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string };
    await mock.config({
      credits: 7,
      latencyMs: 5,
      videoOutcome: 'fail',
      videoSteps: 5,
      streamStepMs: 99,
      faults: { rate: 0, kinds: ['500'] },
      idempotency: { maxKeys: 3 },
    });
    await mock.config({ credits: 500 });
    await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    await mock.call('POST', '/api/v1/video', { body: { prompt: 'x' } });
    const reset = await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
    expect(await reset.json()).toEqual({ credits: 1000 });
    const state = await mock.state();
    expect(state).toMatchObject({ credits: 1000, ledger: [], requests: 0, runs: [], videos: [], streams: {} });
    expect(state.config).toEqual({
      credits: 1000,
      videoOutcome: 'succeed',
      videoSteps: 2,
      videoPollAfterMs: 500,
      videoRefundDelayMs: 0,
      streamStepMs: 40,
      latencyMs: 0,
      hold: [],
      faults: { rate: 0, kinds: ['500', '503', '429', 'reset', 'truncate'] },
      idempotency: { maxKeys: 10_000, maxAgeMs: 86_400_000 },
    });
    expect((await mock.call('GET', '/api/v1/workflows')).status).toBe(200);
    expect((await mock.call('GET', '/api/v1/workflows', { auth: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    expect((await mock.call('GET', '/api/ai/agents', { auth: 'session' })).status).toBe(200);
  });

  it('config merges, sets the balance without a ledger entry, and refuses bad settings with 400', async () => {
    const merged = await mock.config({ faults: { kinds: ['503'] } });
    expect(merged.faults).toEqual({ rate: 0, kinds: ['503'] });
    expect((await mock.config({ faults: { rate: 0.5 } })).faults).toEqual({ rate: 0.5, kinds: ['503'] });
    await mock.config({ faults: { rate: 0 } });
    expect(await mock.config({ credits: 42, seed: 7 })).toMatchObject({ credits: 42, seed: '7', latencyMs: 0, streamStepMs: 1 });
    expect(await mock.state()).toMatchObject({ credits: 42, ledger: [] });
    const bad: unknown[] = [
      { credits: -1 },
      { credits: 1.5 },
      { credits: '5' },
      { videoOutcome: 'maybe' },
      { videoSteps: 0 },
      { videoPollAfterMs: -1 },
      { streamStepMs: 'fast' },
      { latencyMs: null },
      { seed: { a: 1 } },
      { faults: { rate: 2 } },
      { faults: { rate: -0.1 } },
      { faults: { kinds: ['boom'] } },
      { faults: { kinds: '500' } },
      { faults: [] },
      { faults: null },
      { hold: 'generate' },
      { hold: ['generate', 'paint'] },
      { hold: ['__proto__'] },
      { colour: 'red' },
      [],
      'x',
    ];
    for (const body of bad) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectErrorShape(await response.json());
    }
    const malformed = await fetch(`${mock.url}/__mock/config`, { method: 'POST', body: '{' });
    expect(malformed.status).toBe(400);
    expectErrorShape(await malformed.json(), 'invalid_json');
    // Nothing of the refused settings stuck.
    expect((await mock.state()).config).toMatchObject({ credits: 42, videoOutcome: 'succeed', faults: { rate: 0, kinds: ['503'] } });
  });

  it('hold keeps an endpoint’s calls waiting, before anything is charged, until it is taken off the list; a reset lets them go too', async () => {
    expect((await mock.state()).held).toBe(0);
    expect(await mock.config({ hold: ['generate', 'generate'] })).toMatchObject({ hold: ['generate'] });
    const first = mock.call('POST', '/api/v1/generate', { body: GENERATE });
    const second = mock.call('POST', '/api/v1/generate', { body: GENERATE });
    for (let tries = 0; (await mock.state()).held < 2; tries++) {
      if (tries >= 2_000) throw new Error('the calls were not held within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Other endpoints go on (listing workflows costs 1); the held calls have charged nothing yet.
    expect((await mock.call('GET', '/api/v1/workflows')).status).toBe(200);
    const holding = await mock.state();
    expect([holding.held, holding.ledger.map((entry) => entry.reason)]).toEqual([2, ['list workflows']]);
    await mock.config({ hold: [] });
    expect([(await first).status, (await second).status]).toEqual([201, 201]);
    expect(await mock.state()).toMatchObject({ held: 0, credits: 979 });

    await mock.config({ hold: ['generate'] });
    const third = mock.call('POST', '/api/v1/generate', { body: GENERATE });
    for (let tries = 0; (await mock.state()).held < 1; tries++) {
      if (tries >= 2_000) throw new Error('the call was not held within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await mock.reset();
    expect((await third).status).toBe(201);
    expect((await mock.state()).config.hold).toEqual([]);
  });

  it('seed re-seeds the random choices: the same seed, the same fault sequence', async () => {
    const sequence = async () => {
      await mock.config({ seed: 'faults', faults: { rate: 0.5, kinds: ['500', '503'] } });
      const statuses = [];
      for (let i = 0; i < 16; i++) statuses.push((await mock.call('GET', '/api/v1/workflows', { auth: 'session' })).status);
      await mock.config({ faults: { rate: 0 } });
      return statuses;
    };
    const first = await sequence();
    expect(new Set(first)).toEqual(new Set([200, 500, 503]));
    expect(await sequence()).toEqual(first);
  });
});
