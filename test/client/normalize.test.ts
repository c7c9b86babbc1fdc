import { describe, expect, it } from 'vitest';
import { UnexpectedResponseError } from '../../src/index.js';
import {
  findAssetUrl,
  normalizeGeneration,
  normalizeRun,
  normalizeState,
  normalizeVideo,
  readCredits,
} from '../../src/client/normalize.js';
import { normalizeAgents, normalizeWorkflows } from '../../src/client/lists.js';
import { retryAfterMs } from '../../src/client/values.js';

const info = { headers: {}, baseUrl: 'https://svc.example/' };

describe('normalizeState', () => {
  it.each([
    ['succeeded', 'succeeded'],
    ['success', 'succeeded'],
    ['Completed', 'succeeded'],
    ['done', 'succeeded'],
    ['finished', 'succeeded'],
    ['failed', 'failed'],
    ['error', 'failed'],
    ['errored', 'failed'],
    ['cancelled', 'failed'],
    ['canceled', 'failed'],
    ['queued', 'queued'],
    ['pending', 'queued'],
    ['submitted', 'queued'],
    ['created', 'queued'],
    ['running', 'running'],
    ['processing', 'running'],
    ['in_progress', 'running'],
    ['in-progress', 'running'],
    ['IN PROGRESS', 'running'],
    ['started', 'running'],
    ['something-new', 'running'],
  ])('%s → %s', (status, state) => expect(normalizeState(status)).toBe(state));
});

describe('asset URLs', () => {
  it.each([
    [{ output: { url: 'a' } }, 'a'],
    [{ url: 'b' }, 'b'],
    [{ imageUrl: 'c' }, 'c'],
    [{ image_url: 'd' }, 'd'],
    [{ videoUrl: 'e' }, 'e'],
    [{ output: 'f' }, 'f'],
    [{ outputs: [{ url: 'g' }] }, 'g'],
    [{ result: { url: 'h' } }, 'h'],
    [{ data: [{ url: 'i' }] }, 'i'],
    [{ images: ['j'] }, 'j'],
  ])('%j', (record, url) => expect(findAssetUrl(record)).toBe(url));

  it('resolves relative URLs against the base and unwraps envelopes', () => {
    expect(normalizeGeneration({ data: { id: 'g', status: 'done', imageUrl: '/files/g.png' } }, info)).toMatchObject({
      id: 'g',
      status: 'done',
      assetUrl: 'https://svc.example/files/g.png',
    });
  });

  it('throws UnexpectedResponseError with the raw body when nothing fits', () => {
    const raw = { id: 'g', status: 'succeeded' };
    const error = (() => {
      try {
        normalizeGeneration(raw, info);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).raw).toBe(raw);
    expect(() => normalizeGeneration('hello', info)).toThrow(UnexpectedResponseError);
    expect(() => normalizeRun({ status: 'running' }, info)).toThrow(UnexpectedResponseError);
    expect(() => normalizeRun({ id: 'r' }, info)).toThrow(UnexpectedResponseError);
    expect(() => normalizeVideo({ id: 'v' }, info)).toThrow(UnexpectedResponseError);
    expect(() => normalizeWorkflows({ nope: true })).toThrow(UnexpectedResponseError);
    expect(() => normalizeAgents(null)).toThrow(UnexpectedResponseError);
  });
});

describe('credits', () => {
  it('takes the headers (this exchange) over the body, falls back to the body, omits what is unknown', () => {
    expect(readCredits({ credits: { charged: 10, remaining: 990 } }, { 'x-credits-charged': '99' })).toEqual({
      charged: 99,
      remaining: 990,
    });
    expect(readCredits({ credits: { charged: 10, remaining: 990 } }, {})).toEqual({ charged: 10, remaining: 990 });
    expect(readCredits({}, { 'x-credits-charged': '1', 'x-credits-remaining': '41' })).toEqual({ charged: 1, remaining: 41 });
    expect(readCredits({ credits_charged: 5 }, {})).toEqual({ charged: 5 });
    expect(readCredits(null, {})).toEqual({});
  });

  it('refuses a figure no account can hold as a protocol error (negative, not finite, past 1e12), in the body, a header or a refund', () => {
    const refused = (body: unknown, headers: Record<string, string> = {}): UnexpectedResponseError => {
      try {
        readCredits(body, headers);
      } catch (error) {
        return error as UnexpectedResponseError;
      }
      throw new Error(`not refused: ${JSON.stringify(body)} ${JSON.stringify(headers)}`);
    };
    for (const [body, headers] of [
      [{ credits: { charged: -1e20 } }, {}],
      [{ credits: { charged: -1, remaining: 5 } }, {}],
      [{ credits: { remaining: Number.POSITIVE_INFINITY } }, {}],
      [JSON.parse('{"credits": {"charged": 1e999}}'), {}],
      [{ cost: 2e12 }, {}],
      [{}, { 'x-credits-charged': '-5' }],
      [{}, { 'x-credits-remaining': 'Infinity' }],
    ] as const) {
      const error = refused(body, headers);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error.code).toBe('unexpected_response');
      expect(error.message).toMatch(/not a credit amount \(0 to 1,000,000,000,000\); the answer was not used\.$/);
    }
    expect(() => normalizeVideo({ id: 'vid_1', status: 'failed', refund: { amount: -180 } }, info)).toThrow(
      /the refund as -180, not a credit/,
    );
    // What is not a number at all is another service's shape, left out as before; 0 and fractions are money.
    expect(readCredits({ credits: { charged: 'ten', remaining: 0 } }, {})).toEqual({ remaining: 0 });
    expect(readCredits({ credits: { charged: 0.5, remaining: 1e12 } }, {})).toEqual({ charged: 0.5, remaining: 1e12 });
  });

  it('a replayed answer cost nothing: the stored body says what the call that paid was charged', () => {
    const stored = { credits: { charged: 10, remaining: 990 } };
    const replay = { 'idempotent-replayed': 'true', 'x-credits-charged': '0', 'x-credits-remaining': '970' };
    expect(readCredits(stored, replay)).toEqual({ charged: 0, remaining: 970, paidEarlier: 10 });
    // Without the header, still nothing for this exchange.
    expect(readCredits(stored, { 'idempotent-replayed': 'true' })).toEqual({ charged: 0, remaining: 990, paidEarlier: 10 });
    // When this very call's first attempt lost its answer, the charge the replay reports was this call's.
    expect(readCredits(stored, replay, { earlierAttemptLost: true })).toEqual({ charged: 10, remaining: 970 });
  });
});

describe('records', () => {
  it('reads the mock run shape', () => {
    const run = normalizeRun(
      {
        id: 'run_1',
        workflowId: 'wf',
        status: 'running',
        totalNodes: 3,
        completedNodes: 1,
        currentNode: { id: 'pose', label: 'Pose frames' },
        nodes: [
          { id: 'character', status: 'succeeded', output: { text: 'a knight' } },
          { id: 'pose', status: 'pending' },
        ],
        outputs: [{ nodeId: 'character', url: '/files/x.png', contentType: 'image/png' }],
      },
      info,
    );
    expect(run).toMatchObject({
      id: 'run_1',
      workflowId: 'wf',
      state: 'running',
      status: 'running',
      totalNodes: 3,
      completedNodes: 1,
      currentNode: { id: 'pose', label: 'Pose frames' },
    });
    expect(run.outputs).toEqual([{ nodeId: 'character', url: 'https://svc.example/files/x.png', contentType: 'image/png' }]);
  });

  it('derives run progress from nodes when counts are missing', () => {
    const run = normalizeRun(
      {
        run: {
          id: 'r',
          nodes: [
            { id: 'a', status: 'done', output: 'https://cdn/a.png' },
            { id: 'b', status: 'pending' },
          ],
        },
      },
      info,
    );
    expect(run).toMatchObject({ state: 'running', totalNodes: 2, completedNodes: 1, outputs: [{ nodeId: 'a', url: 'https://cdn/a.png' }] });
  });

  it('reads video jobs: progress, refund, error, poll hint', () => {
    const job = normalizeVideo(
      {
        id: 'vid_1',
        status: 'failed',
        progress: 50,
        output: null,
        error: { code: 'x', message: 'crashed' },
        refunded: true,
        refund: { amount: 180 },
      },
      { ...info, headers: { 'retry-after': '2' } },
    );
    expect(job).toMatchObject({
      state: 'failed',
      progress: 0.5,
      refunded: true,
      refundAmount: 180,
      error: { code: 'x', message: 'crashed' },
      pollAfterMs: 2000,
    });
    expect(job.assetUrl).toBeUndefined();
    expect(normalizeVideo({ id: 'v', status: 'queued', pollAfterMs: 500 }, { ...info, headers: { 'retry-after': '9' } }).pollAfterMs).toBe(
      500,
    );
  });

  it('reads workflows and agents', () => {
    const [wf] = normalizeWorkflows({
      workflows: [
        {
          id: 'wf_a',
          name: 'A',
          nodes: [
            { id: 'character', type: 'prompt', label: 'Character', overridable: true, prompt: 'p' },
            { id: 'pose', type: 'image', name: 'Pose' },
          ],
          overridableNodes: ['character'],
        },
      ],
    });
    expect(wf).toMatchObject({
      id: 'wf_a',
      name: 'A',
      overridableNodes: ['character'],
      nodes: [
        { id: 'character', overridable: true, prompt: 'p' },
        { id: 'pose', label: 'Pose', overridable: false },
      ],
    });
    expect(normalizeWorkflows([{ id: 'w', nodes: [{ id: 'n', overridable: true }] }])[0]!.overridableNodes).toEqual(['n']);
    expect(
      normalizeAgents({ agents: [{ id: 'sprite-artist', name: 'Sprite Artist', kind: 'image' }, 'tile-smith', { nope: 1 }] }).map(
        (a) => a.id,
      ),
    ).toEqual(['sprite-artist', 'tile-smith']);
  });
});

describe('retryAfterMs', () => {
  it('reads ms, seconds and dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after': 'Tue, 31 Dec 2024 00:00:05 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
});
