// docs/mock-server.md "Idempotency": a repeated Idempotency-Key replays the answer for free, per
// credential; another request with it is a 422; concurrent duplicates run once; streams replay whole.
import { describe, expect, it } from 'vitest';
import { expectErrorShape } from '../../support/mock.js';
import { GENERATE, useContractMock } from './harness.js';

const mock = useContractMock();

describe('idempotency', () => {
  it('replays the original response for a repeated key and charges nothing again', async () => {
    const headers = { 'idempotency-key': 'abc-123' };
    const first = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' }, headers });
    const second = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' }, headers });
    expect(second.status).toBe(first.status);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-credits-charged')).toBe('0');
    const reused = await mock.call('POST', '/api/v1/video', { body: { prompt: 'other' }, headers });
    expect(reused.status).toBe(422);
    expectErrorShape(reused.json, 'idempotency_key_reused');
    // Another credential has its own key space.
    const bySession = await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: 'torch' }, headers });
    expect(bySession.json.id).not.toBe(first.json.id);
    expect((await mock.state()).ledger.filter((e: { amount: number }) => e.amount === -180)).toHaveLength(2);
  });

  const post = (path: string, key: string, body: unknown, auth: 'key' | 'session' = 'key') =>
    mock.call('POST', path, { auth, body, headers: { 'idempotency-key': key } });
  const charges = async () => (await mock.state()).ledger.filter((entry: { amount: number }) => entry.amount < 0).length;

  it('every paid POST replays: same status, same body, replay header, no new charge', async () => {
    const cases: [string, unknown, 'key' | 'session'][] = [
      ['/api/v1/generate', GENERATE, 'key'],
      ['/api/ai/generate', GENERATE, 'session'],
      ['/api/v1/workflows/wf_sprite_sheet/run', { overrides: { character: 'a frog' } }, 'key'],
      ['/api/v1/video', { prompt: 'torch' }, 'session'],
    ];
    for (const [path, body, auth] of cases) {
      const first = await post(path, `k-${path}`, body, auth);
      const credits = (await mock.state()).credits;
      for (let i = 0; i < 3; i++) {
        const again = await post(path, `k-${path}`, body, auth);
        expect(again.status, path).toBe(first.status);
        expect(again.text, path).toBe(first.text);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('x-credits-charged')).toBe('0');
        expect(again.headers.get('x-credits-remaining')).toBe(String(credits));
        expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      }
      expect(first.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await charges()).toBe(cases.length);
  });

  it('the same key with another body, path or workflow → 422, nothing charged', async () => {
    await post('/api/v1/generate', 'shared', GENERATE);
    for (const [path, body] of [
      ['/api/v1/generate', { ...GENERATE, prompt: 'another' }],
      ['/api/ai/generate', GENERATE],
      ['/api/v1/video', { prompt: 'rusty sword' }],
    ] as const) {
      const result = await post(path, 'shared', body, path.startsWith('/api/ai/') ? 'session' : 'key');
      if (path.startsWith('/api/ai/')) {
        // A session is another credential: its own key space, so this one is new.
        expect(result.status).toBe(201);
        continue;
      }
      expect(result.status, path).toBe(422);
      expectErrorShape(result.json, 'idempotency_key_reused');
    }
    await post('/api/v1/workflows/wf_tileset/run', 'run-key', {});
    const other = await post('/api/v1/workflows/wf_sprite_sheet/run', 'run-key', {});
    expect(other.status).toBe(422);
    expect(await charges()).toBe(3);
  });

  it('different credentials with the same key are independent', async () => {
    const { apiKey } = (await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string };
    const a = await post('/api/v1/generate', 'same', GENERATE);
    const b = await mock.call('POST', '/api/v1/generate', {
      auth: { authorization: `Bearer ${apiKey}` },
      body: GENERATE,
      headers: { 'idempotency-key': 'same' },
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).not.toBe(a.json.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await charges()).toBe(2);
  });

  it('a refused request is not remembered: after a 402, the same key goes through once paid for', async () => {
    await mock.config({ credits: 100 });
    const refused = await post('/api/v1/video', 'retry-me', { prompt: 'torch' });
    expect(refused.status).toBe(402);
    await mock.config({ credits: 500 });
    const accepted = await post('/api/v1/video', 'retry-me', { prompt: 'torch' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
    expect((await post('/api/v1/video', 'retry-me', { prompt: 'torch' })).json.id).toBe(accepted.json.id);
    expect((await mock.state()).credits).toBe(320);
  });

  it('concurrent requests with one key are charged once', async () => {
    await mock.config({ latencyMs: 30 });
    const results = await Promise.all(Array.from({ length: 4 }, () => post('/api/v1/video', 'race', { prompt: 'torch' })));
    await mock.config({ latencyMs: 0 });
    const fresh = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const other of results) {
      if (other === fresh[0]) continue;
      if (other.status === 409) expectErrorShape(other.json, 'idempotency_in_progress');
      else expect(other.json.id).toBe(fresh[0]!.json.id);
    }
    expect((await mock.state()).ledger).toHaveLength(1);
  });

  it("30 requests at once with one key run once on every paid endpoint (a duplicate's 409 leaves the marker)", async () => {
    const paid: [string, 'key' | 'session', unknown][] = [
      ['/api/v1/generate', 'key', { agentId: 'sprite-artist', prompt: 'coin' }],
      ['/api/v1/workflows/wf_tileset/run', 'key', {}],
      ['/api/v1/video', 'key', { prompt: 'torch' }],
      ['/api/ai/stream', 'session', { agentId: 'sprite-artist', prompt: 'coin' }],
      ['/api/ai/generate', 'session', { agentId: 'sprite-artist', prompt: 'coin' }],
    ];
    await mock.config({ latencyMs: 20, credits: 100_000 });
    for (const [path, auth, body] of paid) {
      const before = (await mock.state()).ledger.length;
      const key = `storm-${path}`;
      const results = await Promise.all(
        Array.from({ length: 30 }, () => mock.call('POST', path, { auth, body, headers: { 'idempotency-key': key } })),
      );
      expect(
        results.every((r) => r.status < 300 || r.status === 409),
        path,
      ).toBe(true);
      expect((await mock.state()).ledger.length - before, path).toBe(1);
    }
    await mock.config({ latencyMs: 0 });
  });

  it('a completed stream replays as the same event text, free', async () => {
    await mock.config({ streamStepMs: 1 });
    const first = await post('/api/ai/stream', 'stream-key', GENERATE, 'session');
    const again = await post('/api/ai/stream', 'stream-key', GENERATE, 'session');
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await charges()).toBe(1);
  });

  it('a stream cut off by the client is not stuck "in progress": a retry with its key replays the whole stream, free', async () => {
    await mock.config({ streamStepMs: 200 });
    const controller = new AbortController();
    const headers = { cookie: mock.cookie, 'content-type': 'application/json', 'idempotency-key': 'cut' };
    const first = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      signal: controller.signal,
      headers,
      body: JSON.stringify(GENERATE),
    });
    const { value } = await first.body!.getReader().read();
    const id = /"id":"(gen_\w+)"/.exec(new TextDecoder().decode(value))![1]!;
    controller.abort();
    let status = '';
    for (let i = 0; i < 50 && status !== 'cancelled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await mock.state()).streams[id]?.status;
    }
    expect(status).toBe('cancelled');
    const retry = await post('/api/ai/stream', 'cut', GENERATE, 'session');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toContain(`"id":"${id}"`);
    expect(retry.text).toMatch(/event: result\n[\s\S]*event: done\n/);
    expect(await charges()).toBe(1);
  });

  it('GETs ignore Idempotency-Key: each poll still advances', async () => {
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    const poll = () => mock.call('GET', `/api/v1/runs/${run.id}`, { headers: { 'idempotency-key': 'poll' } });
    expect((await poll()).json.completedNodes).toBe(1);
    expect((await poll()).json.completedNodes).toBe(2);
  });
});
