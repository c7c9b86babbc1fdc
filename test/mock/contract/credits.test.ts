// docs/mock-server.md "Prices (credits)": every paid call costs its price, reported in headers,
// body and ledger; a call the balance cannot pay gets 402 and charges and creates nothing.
import { describe, expect, it } from 'vitest';
import { PRICES } from '../../../src/mock/index.js';
import { expectErrorShape } from '../../support/mock.js';
import { GENERATE, useContractMock } from './harness.js';

const mock = useContractMock();

describe('credits: the price table, charged and refused', () => {
  it('charges every call per the price table and reports it in headers and body', async () => {
    const generated = await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    expect(generated.status).toBe(201);
    expect(generated.headers.get('x-credits-charged')).toBe(String(PRICES.generation));
    expect(generated.headers.get('x-credits-remaining')).toBe(String(1000 - PRICES.generation));
    expect(generated.json.credits).toEqual({ charged: PRICES.generation, remaining: 1000 - PRICES.generation });
    const listed = await mock.call('GET', '/api/v1/workflows');
    expect(listed.headers.get('x-credits-charged')).toBe(String(PRICES.keyCall));
    const bySession = await mock.call('GET', '/api/v1/workflows', { auth: 'session' });
    expect(bySession.headers.get('x-credits-charged')).toBe('0');
    const run = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    expect(run.headers.get('x-credits-charged')).toBe(String(PRICES.runPerNode * 4));
    expect((await mock.state()).credits).toBe(1000 - 10 - 1 - 20);
  });

  it('charges a video job exactly 180 at submission, with its creation', async () => {
    const video = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect(video.status).toBe(202);
    const state = await mock.state();
    expect(state.ledger).toEqual([expect.objectContaining({ amount: -180, reason: `video ${video.json.id}` })]);
    expect(state.videos).toHaveLength(1);
  });

  it('answers 402 with required and balance, charging nothing and creating nothing', async () => {
    await mock.config({ credits: 100 });
    const video = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect(video.status).toBe(402);
    expectErrorShape(video.json, 'insufficient_credits');
    expect(video.json.error).toMatchObject({ required: 180, balance: 100 });
    await mock.config({ credits: 5 });
    expect((await mock.call('POST', '/api/v1/workflows/wf_tileset/run')).status).toBe(402);
    expect((await mock.call('POST', '/api/v1/generate', { body: GENERATE })).status).toBe(402);
    const state = await mock.state();
    expect(state.credits).toBe(5);
    expect(state.ledger).toEqual([]);
    expect(state.videos).toEqual([]);
    expect(state.runs).toEqual([]);
  });

  const service = () => mock.server.service.state;
  const paid: {
    what: string;
    method: string;
    path: () => Promise<string>;
    auth: 'key' | 'session';
    body?: unknown;
    price: number;
    bodyCredits: boolean;
  }[] = [
    {
      what: 'generate (key)',
      method: 'POST',
      path: async () => '/api/v1/generate',
      auth: 'key',
      body: GENERATE,
      price: PRICES.generation,
      bodyCredits: true,
    },
    {
      what: 'session generate',
      method: 'POST',
      path: async () => '/api/ai/generate',
      auth: 'session',
      body: GENERATE,
      price: PRICES.generation,
      bodyCredits: true,
    },
    {
      what: 'stream',
      method: 'POST',
      path: async () => '/api/ai/stream',
      auth: 'session',
      body: GENERATE,
      price: PRICES.generation,
      bodyCredits: false,
    },
    {
      what: 'list workflows (key)',
      method: 'GET',
      path: async () => '/api/v1/workflows',
      auth: 'key',
      price: PRICES.keyCall,
      bodyCredits: false,
    },
    {
      what: 'list workflows (session)',
      method: 'GET',
      path: async () => '/api/v1/workflows',
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: false,
    },
    {
      what: 'list agents (session)',
      method: 'GET',
      path: async () => '/api/ai/agents',
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: false,
    },
    {
      what: 'run sprite sheet (key)',
      method: 'POST',
      path: async () => '/api/v1/workflows/wf_sprite_sheet/run',
      auth: 'key',
      price: PRICES.runPerNode * 3,
      bodyCredits: false,
    },
    {
      what: 'run tileset (session)',
      method: 'POST',
      path: async () => '/api/v1/workflows/wf_tileset/run',
      auth: 'session',
      price: PRICES.runPerNode * 4,
      bodyCredits: false,
    },
    {
      what: 'run turnaround (key)',
      method: 'POST',
      path: async () => '/api/v1/workflows/wf_character_turnaround/run',
      auth: 'key',
      price: PRICES.runPerNode * 6,
      bodyCredits: false,
    },
    {
      what: 'poll a run (key)',
      method: 'GET',
      path: async () => `/api/v1/runs/${(await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { auth: 'session' })).json.id}`,
      auth: 'key',
      price: PRICES.keyCall,
      bodyCredits: false,
    },
    {
      what: 'poll a run (session)',
      method: 'GET',
      path: async () => `/api/v1/runs/${(await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { auth: 'session' })).json.id}`,
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: false,
    },
    {
      what: 'video (key)',
      method: 'POST',
      path: async () => '/api/v1/video',
      auth: 'key',
      body: { prompt: 'torch' },
      price: 180,
      bodyCredits: true,
    },
    {
      what: 'video (session)',
      method: 'POST',
      path: async () => '/api/v1/video',
      auth: 'session',
      body: { prompt: 'torch' },
      price: 180,
      bodyCredits: true,
    },
    {
      what: 'poll a video (key)',
      method: 'GET',
      path: async () => `/api/v1/video/${(await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: 'x' } })).json.id}`,
      auth: 'key',
      price: PRICES.keyCall,
      bodyCredits: true,
    },
    {
      what: 'poll a video (session)',
      method: 'GET',
      path: async () => `/api/v1/video/${(await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: 'x' } })).json.id}`,
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: true,
    },
  ];

  it('the table is the documented one; a video is 180', () => {
    expect(PRICES).toEqual({ generation: 10, runPerNode: 5, video: 180, keyCall: 1, sessionCall: 0 });
  });

  for (const call of paid) {
    it(`${call.what} costs ${call.price}, reported in headers${call.bodyCredits ? ' and body' : ''} and the ledger`, async () => {
      const path = await call.path();
      const before = (await mock.state()).credits;
      const ledgerBefore = (await mock.state()).ledger.length;
      const result = await mock.call(call.method, path, { auth: call.auth, body: call.body });
      expect(result.status).toBeLessThan(300);
      expect(result.headers.get('x-credits-charged')).toBe(String(call.price));
      expect(result.headers.get('x-credits-remaining')).toBe(String(before - call.price));
      if (call.bodyCredits) expect(result.json.credits).toEqual({ charged: call.price, remaining: before - call.price });
      const after = await mock.state();
      expect(after.credits).toBe(before - call.price);
      const added = after.ledger.slice(ledgerBefore);
      expect(added.map((entry: { amount: number }) => entry.amount)).toEqual(call.price ? [-call.price] : []);
    });
  }

  for (const call of paid.filter((c) => c.price > 0)) {
    it(`${call.what} with ${call.price - 1} credits → 402 {required, balance}, nothing charged or created`, async () => {
      const path = await call.path();
      await mock.config({ credits: call.price - 1 });
      const before = await mock.state();
      const files = service().files.size;
      const result = await mock.call(call.method, path, { auth: call.auth, body: call.body });
      expect(result.status).toBe(402);
      expectErrorShape(result.json, 'insufficient_credits');
      expect(result.json.error).toMatchObject({ required: call.price, balance: call.price - 1 });
      expect(result.headers.get('x-credits-charged')).toBe('0');
      expect(result.headers.get('x-credits-remaining')).toBe(String(call.price - 1));
      const after = await mock.state();
      expect(after.credits).toBe(call.price - 1);
      expect(after.ledger).toEqual(before.ledger);
      expect(after.runs).toEqual(before.runs);
      expect(after.videos).toEqual(before.videos);
      expect(service().files.size).toBe(files);
      expect(Object.keys(after.streams)).toEqual(Object.keys(before.streams));
    });
  }

  it('a 402 poll does not advance the run (a session poll, free, still does)', async () => {
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    await mock.config({ credits: 0 });
    expect((await mock.call('GET', `/api/v1/runs/${run.id}`)).status).toBe(402);
    expect((await mock.state()).runs[0].completedNodes).toBe(0);
    expect((await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json.completedNodes).toBe(1);
  });
});
