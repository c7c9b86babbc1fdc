// An optional field is left out or given a value: `null` is refused with 400 before anything is
// charged, never read as "the default" (a client bug that sends null must not spend 180 credits).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

describe('null in an optional field', () => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['POST', '/api/v1/video', { prompt: '0', aspectRatio: null }, 'aspectRatio'],
    ['POST', '/api/v1/video', { prompt: '0', durationSeconds: null }, 'durationSeconds'],
    ['POST', '/api/v1/video', { prompt: '0', agentId: null }, 'agentId'],
    ['POST', '/api/v1/workflows/wf_tileset/run', { overrides: null }, 'overrides'],
  ];
  for (const [method, path, body, field] of cases) {
    it(`${method} ${path} with "${field}": null → 400 invalid_request naming the field; nothing charged or created`, async () => {
      for (const auth of ['key', 'session'] as const) {
        const answer = await mock.call(method, path, { auth, body, headers: { 'idempotency-key': `null-${field}-${auth}` } });
        expect(answer.status, answer.text).toBe(400);
        expect(answer.json.error).toMatchObject({ code: 'invalid_request', field });
        expect(answer.json.error.message).toContain('null');
        expect(answer.headers.get('x-credits-charged')).toBe('0');
      }
      const state = await mock.state();
      expect(state.ledger).toEqual([]);
      expect(state.credits).toBe(1000);
      expect([state.videos.length, state.runs.length]).toEqual([0, 0]);
    });
  }

  it('the same bodies without the null field are accepted and charged (so the 400 is about null)', async () => {
    const video = await mock.call('POST', '/api/v1/video', { body: { prompt: '0' } });
    expect(video.status).toBe(202);
    const run = await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { body: {} });
    expect(run.status).toBe(201);
    expect((await mock.state()).ledger.map((entry) => entry.amount)).toEqual([-180, -20]);
  });
});
