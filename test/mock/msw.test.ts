// The same handlers in-process: msw's setupServer intercepting globalThis.fetch, no socket at all.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockService, defaultMock, handlers } from '../../src/mock/index.js';

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('msw handlers', () => {
  it('answer globalThis.fetch for any origin, with the default mock credentials', async () => {
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
});
