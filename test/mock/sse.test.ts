// The stream: read by a third-party EventSource client and by eventsource-parser, arriving event
// by event, and stopped when the client goes away.
import { EventSource } from 'eventsource';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

let mock: Harness;
beforeAll(async () => {
  mock = await startHarness();
});
afterAll(async () => {
  await mock.server.close();
});
beforeEach(async () => {
  await mock.reset();
});

const body = JSON.stringify({ agentId: 'tile-smith', prompt: 'lava tile' });

describe('POST /api/ai/stream', () => {
  it('is read by the eventsource package: start, progress…, result, done', async () => {
    await mock.config({ streamStepMs: 5 });
    const source = new EventSource(`${mock.url}/api/ai/stream`, {
      fetch: (input, init) => fetch(input, { ...init, method: 'POST', body, headers: { ...(init?.headers as Record<string, string>), cookie: mock.cookie, 'content-type': 'application/json' } }),
    });
    const events: { type: string; data: any }[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('stream did not finish in 5 s')), 5_000);
      for (const type of ['start', 'progress', 'result']) source.addEventListener(type, (event) => events.push({ type, data: JSON.parse(event.data) }));
      source.addEventListener('done', () => {
        clearTimeout(timer);
        source.close();
        resolve();
      });
      source.onerror = (error) => {
        clearTimeout(timer);
        source.close();
        reject(new Error(`EventSource error: ${error.message ?? 'unknown'}`));
      };
    });
    expect(events[0]?.type).toBe('start');
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(3);
    const result = events.at(-1)!;
    expect(result.type).toBe('result');
    expect(result.data.output.url).toMatch(/\/files\/gen_\w+\.png$/);
    expect((await mock.state()).ledger).toEqual([expect.objectContaining({ amount: -10 })]);
  });

  it('flushes each event as it happens, and stops when the client disconnects', async () => {
    await mock.config({ streamStepMs: 300 });
    const controller = new AbortController();
    const response = await fetch(`${mock.url}/api/ai/stream`, { method: 'POST', body, headers: { cookie: mock.cookie, 'content-type': 'application/json' }, signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const received: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => received.push(event) });
    const reader = response.body!.getReader();
    // The first event arrives on its own, long before the 8-event stream (≈2 s) could have ended.
    const { value } = await reader.read();
    parser.feed(new TextDecoder().decode(value));
    expect(received.map((e) => e.event)).toEqual(['start']);
    const id = JSON.parse(received[0]!.data).id as string;
    controller.abort();
    await reader.cancel().catch(() => {});
    let status = '';
    for (let i = 0; i < 50 && status !== 'cancelled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await mock.state()).streams[id]?.status;
    }
    expect(status).toBe('cancelled');
    const events = (await mock.state()).streams[id].events;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await mock.state()).streams[id].events).toBe(events);
  });

  it('answers validation and auth errors as JSON before streaming', async () => {
    const noSession = await fetch(`${mock.url}/api/ai/stream`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(noSession.status).toBe(401);
    const bad = await fetch(`${mock.url}/api/ai/stream`, { method: 'POST', body: '{', headers: { cookie: mock.cookie, 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('invalid_json');
  });
});
