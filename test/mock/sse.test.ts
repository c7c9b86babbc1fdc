// The stream: read by a third-party EventSource client and by eventsource-parser, arriving event
// by event, and stopped when the client goes away.
import { EventSource } from 'eventsource';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock();
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
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          method: 'POST',
          body,
          headers: { ...(init?.headers as Record<string, string>), cookie: mock.cookie, 'content-type': 'application/json' },
        }),
    });
    const events: { type: string; data: any }[] = [];
    let opened = 0;
    source.onopen = () => (opened += 1);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('stream did not finish in 5 s')), 5_000);
      for (const type of ['start', 'progress', 'result'])
        source.addEventListener(type, (event) => events.push({ type, data: JSON.parse(event.data) }));
      source.addEventListener('done', (event) => {
        events.push({ type: 'done', data: JSON.parse(event.data) });
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
    expect(opened).toBe(1);
    // Exactly: start, progress × N (N ≥ 3, rising, below 1), result, done.
    const types = events.map((e) => e.type);
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(types).toEqual(['start', ...progress.map(() => 'progress'), 'result', 'done']);
    const values = progress.map((e) => e.data.progress as number);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values.every((v) => v > 0 && v < 1)).toBe(true);
    for (const e of progress) expect(e.data.message).toEqual(expect.any(String));
    const start = events[0]!.data;
    const result = events.at(-2)!.data;
    expect(start).toEqual({ id: result.id, agentId: 'tile-smith', prompt: 'lava tile' });
    expect(result).toMatchObject({
      object: 'generation',
      status: 'succeeded',
      agentId: 'tile-smith',
      prompt: 'lava tile',
      credits: { charged: 10, remaining: 990 },
    });
    expect(result.output.url).toMatch(/\/files\/gen_\w+\.png$/);
    expect((await fetch(result.output.url)).headers.get('content-type')).toBe('image/png');
    expect(events.at(-1)!.data).toEqual({});
    const state = await mock.state();
    expect(state.ledger).toEqual([expect.objectContaining({ amount: -10 })]);
    expect(state.streams[result.id]).toEqual({ status: 'completed', events: events.length });
  });

  it('flushes each event as it happens, and stops when the client disconnects', async () => {
    await mock.config({ streamStepMs: 300 });
    const controller = new AbortController();
    const response = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      body,
      headers: { cookie: mock.cookie, 'content-type': 'application/json' },
      signal: controller.signal,
    });
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

  it('events arrive one by one: with 200 ms between them, the first comes well before the end', async () => {
    await mock.config({ streamStepMs: 200 });
    const started = Date.now();
    const response = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      body,
      headers: { cookie: mock.cookie, 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const arrivals: { event: string; at: number }[] = [];
    const parser = createParser({ onEvent: (event) => arrivals.push({ event: event.event ?? 'message', at: Date.now() - started }) });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    expect(arrivals.map((a) => a.event)).toEqual(['start', 'progress', 'progress', 'progress', 'progress', 'progress', 'result', 'done']);
    // 7 pauses of 200 ms separate the first event from the last: a buffered stream would deliver
    // them together. Only a generous lower bound on the spread is asserted.
    const spread = arrivals.at(-1)!.at - arrivals[0]!.at;
    expect(spread).toBeGreaterThanOrEqual(700);
    // And the events are spread out, not delivered in one burst at the end.
    const distinctTimes = new Set(arrivals.map((a) => Math.floor(a.at / 100)));
    expect(distinctTimes.size).toBeGreaterThanOrEqual(4);
  });

  it('an EventSource closed after its first event stops the stream', async () => {
    await mock.config({ streamStepMs: 200 });
    const source = new EventSource(`${mock.url}/api/ai/stream`, {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          method: 'POST',
          body,
          headers: { ...(init?.headers as Record<string, string>), cookie: mock.cookie, 'content-type': 'application/json' },
        }),
    });
    const id = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no start event within 5 s')), 5_000);
      source.addEventListener('start', (event) => {
        clearTimeout(timer);
        source.close();
        resolve(JSON.parse(event.data).id);
      });
    });
    let stream: { status: string; events: number } | undefined;
    for (let i = 0; i < 50 && stream?.status !== 'cancelled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stream = (await mock.state()).streams[id];
    }
    expect(stream?.status).toBe('cancelled');
    expect(stream!.events).toBeLessThan(8);
  });

  it('answers validation and auth errors as JSON before streaming', async () => {
    const noSession = await fetch(`${mock.url}/api/ai/stream`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(noSession.status).toBe(401);
    const bad = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      body: '{',
      headers: { cookie: mock.cookie, 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('invalid_json');
    const withKey = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json' },
    });
    expect(withKey.status).toBe(401);
    expect((await withKey.json()).error.code).toBe('session_required');
    const unknown = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      body: JSON.stringify({ agentId: 'nobody', prompt: 'x' }),
      headers: { cookie: mock.cookie, 'content-type': 'application/json' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await unknown.json()).error.code).toBe('unknown_agent');
    await mock.config({ credits: 9 });
    const broke = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      body,
      headers: { cookie: mock.cookie, 'content-type': 'application/json' },
    });
    expect(broke.status).toBe(402);
    expect((await broke.json()).error).toMatchObject({ code: 'insufficient_credits', required: 10, balance: 9 });
    expect((await mock.state()).streams).toEqual({});
  });
});
