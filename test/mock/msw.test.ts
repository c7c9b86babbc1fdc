// The same handlers in-process: msw's setupServer intercepting globalThis.fetch, no socket at all.
import { getResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockService } from '../../src/mock/index.js';

const defaultMock = createMockService();
const server = setupServer(...defaultMock.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('msw handlers', () => {
  it("answer globalThis.fetch for any origin, with the service's credentials", async () => {
    const response = await fetch('http://assetgen.test/api/v1/generate', {
      method: 'POST',
      headers: { authorization: `Bearer ${defaultMock.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'icon-forge', prompt: 'gold coin' }),
    });
    expect(response.status).toBe(201);
    const generation = (await response.json()) as { output: { url: string } };
    expect(generation.output.url).toMatch(/^http:\/\/assetgen\.test\/files\/gen_/);
    const file = await fetch(generation.output.url);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(defaultMock.state.credits).toBe(990);
  });

  it('can be mounted from an isolated service with its own state', async () => {
    const service = createMockService({ credits: 3 });
    server.use(...service.handlers);
    const response = await fetch('https://elsewhere.test/api/v1/video', {
      method: 'POST',
      headers: { cookie: service.sessionCookie, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x' }),
    });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: { balance: number } }).error.balance).toBe(3);
    server.resetHandlers();
  });

  it('serve the session endpoints in-process too: agents, one-shot generate, and the SSE stream', async () => {
    const headers = { cookie: defaultMock.sessionCookie, 'content-type': 'application/json' };
    const agents = (await (await fetch('http://assetgen.test/api/ai/agents', { headers })).json()) as { agents: { id: string }[] };
    expect(agents.agents.map((a) => a.id)).toContain('sprite-artist');
    const body = JSON.stringify({ agentId: 'tile-smith', prompt: 'lava' });
    expect((await fetch('http://assetgen.test/api/ai/generate', { method: 'POST', headers, body })).status).toBe(201);
    defaultMock.state.configure({ streamStepMs: 1 });
    const stream = await fetch('http://assetgen.test/api/ai/stream', { method: 'POST', headers, body });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await stream.text();
    expect([...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1])).toEqual([
      'start',
      'progress',
      'progress',
      'progress',
      'progress',
      'progress',
      'result',
      'done',
    ]);
    const key = await fetch('http://assetgen.test/api/ai/agents', { headers: { authorization: `Bearer ${defaultMock.apiKey}` } });
    expect(key.status).toBe(401);
  });

  it('answer errors as JSON in-process (bad JSON, oversized, malformed path, wrong method)', async () => {
    const headers = { authorization: `Bearer ${defaultMock.apiKey}`, 'content-type': 'application/json' };
    const cases: [string, RequestInit, number][] = [
      ['http://assetgen.test/api/v1/generate', { method: 'POST', headers, body: '{' }, 400],
      ['http://assetgen.test/api/v1/generate', { method: 'POST', headers, body: 'x'.repeat(70_000) }, 413],
      ['http://assetgen.test/api/v1/runs/%E0%A4%A', { headers }, 400],
      ['http://assetgen.test/api/v1/generate', { method: 'GET', headers }, 405],
      ['http://assetgen.test/api/v1/nothing', { headers }, 404],
    ];
    for (const [url, init, status] of cases) {
      const response = await fetch(url, init);
      expect(response.status, url).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^[a-z_]+$/);
    }
  });

  it("leave other requests alone (only the service's own path spaces are matched)", async () => {
    for (const url of [
      'http://assetgen.test/',
      'http://assetgen.test/health',
      'https://example.test/v1/generate',
      'http://assetgen.test/apix/v1/generate',
    ]) {
      expect(await getResponse(defaultMock.handlers, new Request(url)), url).toBeUndefined();
    }
    expect(await getResponse(defaultMock.handlers, new Request('http://assetgen.test/api/v1/workflows'))).toBeDefined();
  });

  it('answer an injected connection reset as a network error (fetch rejects)', async () => {
    const service = createMockService();
    service.state.configure({ faults: { rate: 1, kinds: ['reset'] } });
    server.use(...service.handlers);
    const failed = await fetch('http://assetgen.test/api/ai/agents', { headers: { authorization: `Bearer ${service.apiKey}` } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TypeError);
    server.resetHandlers();
  });
});
