// docs/mock-server.md "Fault injection": each kind strikes the public endpoints as documented
// (charged only for truncate), never files or the admin API, seeded, and off at rate 0.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectErrorShape } from '../../support/mock.js';
import { GENERATE, useContractMock } from './harness.js';

const mock = useContractMock();

describe('fault injection', () => {
  const once = async (kind: string) => {
    await mock.config({ faults: { rate: 1, kinds: [kind] } });
    try {
      return await fetch(`${mock.url}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(GENERATE),
      });
    } finally {
      await mock.config({ faults: { rate: 0 } });
    }
  };

  it('500, 503 and 429 (with Retry-After) strike before processing: nothing charged', async () => {
    for (const [kind, status] of [
      ['500', 500],
      ['503', 503],
      ['429', 429],
    ] as const) {
      const response = await once(kind);
      expect(response.status).toBe(status);
      expectErrorShape(await response.json());
      if (kind === '429') expect(response.headers.get('retry-after')).toBe('1');
    }
    expect((await mock.state()).ledger).toEqual([]);
  });

  it('reset drops the connection', async () => {
    await expect(once('reset')).rejects.toThrow();
    expect((await mock.state()).ledger).toEqual([]);
  });

  it('truncate cuts the body short after processing (and charging)', async () => {
    const response = await once('truncate');
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
    await expect(response.text()).rejects.toThrow();
    expect((await mock.state()).ledger).toHaveLength(1);
  });

  it('latencyMs delays every public response', async () => {
    await mock.config({ latencyMs: 150 });
    const started = Date.now();
    await mock.call('GET', '/api/v1/workflows');
    await mock.config({ latencyMs: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${mock.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
  const withFaults = async <T>(kinds: string[], run: () => Promise<T>): Promise<T> => {
    await mock.config({ faults: { rate: 1, kinds } });
    try {
      return await run();
    } finally {
      await mock.config({ faults: { rate: 0 } });
    }
  };

  it('strike every public endpoint at rate 1, never files or the admin API', async () => {
    const { json: gen } = await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    await withFaults(['503'], async () => {
      for (const [method, path, auth] of [
        ['GET', '/api/v1/workflows', 'key'],
        ['POST', '/api/v1/generate', 'key'],
        ['GET', `/api/v1/runs/${run.id}`, 'session'],
        ['POST', '/api/ai/stream', 'session'],
        ['GET', '/api/ai/agents', 'session'],
        ['GET', '/api/ai/agents', 'none'],
      ] as const) {
        const result = await mock.call(method, path, { auth, body: method === 'POST' ? GENERATE : undefined });
        expect(result.status, path).toBe(503);
        expectErrorShape(result.json, 'unavailable');
        expect(result.headers.get('retry-after')).toBe('0');
      }
      expect((await fetch(gen.output.url)).status).toBe(200);
      expect((await fetch(`${mock.url}/__mock/state`)).status).toBe(200);
    });
    expect((await mock.state()).runs[0].completedNodes).toBe(0);
  });

  it('truncate: the announced Content-Length is not delivered (read on a raw socket)', async () => {
    const { status, declared, received } = await withFaults(
      ['truncate'],
      () =>
        new Promise<{ status: number; declared: number; received: number }>((resolve, reject) => {
          const req = http.request(`${mock.url}/api/v1/workflows`, { headers: { authorization: `Bearer ${mock.key}` } }, (res) => {
            let received = 0;
            res.on('data', (chunk: Buffer) => (received += chunk.length));
            const done = () => resolve({ status: res.statusCode!, declared: Number(res.headers['content-length']), received });
            res.on('end', done);
            res.on('aborted', done);
            res.on('error', done);
            res.on('close', done);
          });
          req.on('error', reject);
          req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
          req.end();
        }),
    );
    expect(status).toBe(200);
    expect(declared).toBeGreaterThan(100);
    expect(received).toBeLessThan(declared);
  });

  it('truncate after a charge: the same Idempotency-Key replays it for free once faults stop', async () => {
    const headers = { 'idempotency-key': 'lost-answer' };
    const body = JSON.stringify({ prompt: 'torch' });
    const lost = await withFaults(['truncate'], () => request('/api/v1/video', { method: 'POST', body, headers }));
    await expect(lost.text()).rejects.toThrow();
    const replay = await request('/api/v1/video', { method: 'POST', body, headers });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { id: string }).id).toMatch(/^vid_/);
    const state = await mock.state();
    expect(state.ledger).toHaveLength(1);
    expect(state.videos).toHaveLength(1);
  });

  it('faults also strike idempotent replays (and charge nothing)', async () => {
    const headers = { 'idempotency-key': 'replay-fault' };
    const body = JSON.stringify(GENERATE);
    expect((await request('/api/v1/generate', { method: 'POST', body, headers })).status).toBe(201);
    const faulted = await withFaults(['500'], () => request('/api/v1/generate', { method: 'POST', body, headers }));
    expect(faulted.status).toBe(500);
    expectErrorShape(await faulted.json(), 'internal_error');
    await expect(withFaults(['reset'], () => request('/api/v1/generate', { method: 'POST', body, headers }))).rejects.toThrow();
    expect((await request('/api/v1/generate', { method: 'POST', body, headers })).headers.get('idempotent-replayed')).toBe('true');
    expect((await mock.state()).ledger).toHaveLength(1);
  });

  it('rate 0 turns them off', async () => {
    await mock.config({ faults: { rate: 1, kinds: ['500'] } });
    await mock.config({ faults: { rate: 0 } });
    for (let i = 0; i < 5; i++) expect((await mock.call('GET', '/api/v1/workflows', { auth: 'session' })).status).toBe(200);
  });
});
