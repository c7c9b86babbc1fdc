// docs/mock-server.md "Responses": video jobs (polling, Retry-After, the mock's own refunds),
// workflows and runs (one node a poll), and agents.
import { describe, expect, it } from 'vitest';
import { PRICES } from '../../../src/mock/index.js';
import { expectErrorShape } from '../../support/mock.js';
import { useContractMock } from './harness.js';

const mock = useContractMock();

/**
 * A failing job also fails on the mock's clock, polled or not: at `videoSteps` × `videoPollAfterMs`
 * + 1 s (docs/mock-server.md). The harness's `videoPollAfterMs: 0` leaves one second, which a worker
 * stalled under load outlasted (every poll then read `failed`). The tests that count polls set a
 * pace of a minute: only their polls move the job.
 */
const POLLED_NOT_TIMED = { videoPollAfterMs: 60_000 };

describe('video jobs: polling and refunds', () => {
  it('refunds once, visible in the ledger, the job record and the balance', async () => {
    await mock.config({ videoOutcome: 'fail', videoSteps: 2, ...POLLED_NOT_TIMED });
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect((await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' })).json.status).toBe('processing');
    const failed = await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' });
    expect(failed.json).toMatchObject({ status: 'failed', refunded: true, refund: { amount: 180 }, error: { code: 'generation_failed' } });
    await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' });
    const state = await mock.state();
    expect(state.ledger.map((entry: { amount: number }) => entry.amount)).toEqual([-180, 180]);
    expect(state.credits).toBe(1000);
  });

  it('delivers a succeeded job with a real file', async () => {
    await mock.config({ videoSteps: 1 });
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch', durationSeconds: 2, aspectRatio: '1:1' } });
    const done = await mock.call('GET', `/api/v1/video/${job.id}`);
    expect(done.json).toMatchObject({ status: 'succeeded', refunded: false, durationSeconds: 2, aspectRatio: '1:1' });
    const file = await fetch(done.json.output.url);
    expect(file.headers.get('content-type')).toBe('image/gif');
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(0, 6)
        .toString(),
    ).toBe('GIF89a');
  });

  it('a failed job is refunded exactly once however often it is polled, by key or by session', async () => {
    await mock.config({ videoOutcome: 'fail', videoSteps: 3, ...POLLED_NOT_TIMED });
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    const polls = [];
    for (let i = 0; i < 6; i++) polls.push((await mock.call('GET', `/api/v1/video/${job.id}`, { auth: i % 2 ? 'key' : 'session' })).json);
    expect(polls.map((p) => p.status)).toEqual(['processing', 'processing', 'failed', 'failed', 'failed', 'failed']);
    expect(polls.map((p) => p.refunded)).toEqual([false, false, true, true, true, true]);
    for (const failed of polls.slice(2))
      expect(failed).toMatchObject({ refund: { amount: 180, at: polls[2].refund.at }, output: null, progress: 1 });
    const state = await mock.state();
    const refunds = state.ledger.filter((entry: { amount: number }) => entry.amount > 0);
    expect(refunds).toEqual([expect.objectContaining({ amount: 180, reason: `refund ${job.id}` })]);
    // 1000 − 180 + 180 − the key polls (polls 2, 4 and 6 are by key, 1 each).
    expect(state.credits).toBe(1000 - 3 * PRICES.keyCall);
    expect(state.videos[0]).toMatchObject({ id: job.id, status: 'failed', refund: { amount: 180 } });
  });

  it('random outcomes follow the seed', async () => {
    const outcomes = async () => {
      await mock.reset();
      await mock.config({ videoOutcome: 'random', videoSteps: 1, seed: 'refunds', credits: 10_000 });
      const result = [];
      for (let i = 0; i < 12; i++) {
        const { json: job } = await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: `p${i}` } });
        result.push((await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' })).json.status);
      }
      return result;
    };
    const first = await outcomes();
    expect(new Set(first)).toEqual(new Set(['succeeded', 'failed']));
    expect(await outcomes()).toEqual(first);
    const state = await mock.state();
    expect(state.credits).toBe(10_000 - 180 * first.filter((s) => s === 'succeeded').length);
  });

  it('unfinished jobs carry Retry-After and pollAfterMs; finished ones do not ask to poll again', async () => {
    await mock.config({ videoPollAfterMs: 2500, videoSteps: 2 });
    const created = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect(created.status).toBe(202);
    expect(created.headers.get('retry-after')).toBe('3');
    expect(created.json).toMatchObject({
      status: 'queued',
      pollAfterMs: 2500,
      progress: 0,
      output: null,
      error: null,
      refunded: false,
      refund: null,
    });
    const processing = await mock.call('GET', `/api/v1/video/${created.json.id}`);
    expect(processing.json.status).toBe('processing');
    expect(processing.headers.get('retry-after')).toBe('3');
    const done = await mock.call('GET', `/api/v1/video/${created.json.id}`);
    expect(done.json.status).toBe('succeeded');
    expect(done.headers.get('retry-after')).toBeNull();
    expect(done.json.output).toEqual({ url: `${mock.url}/files/${created.json.id}.gif`, contentType: 'image/gif' });
  });
});

describe('workflows and runs', () => {
  it('lists at least three workflows of different lengths with overridable nodes', async () => {
    const { json } = await mock.call('GET', '/api/v1/workflows');
    expect(json.workflows.length).toBeGreaterThanOrEqual(3);
    expect(new Set(json.workflows.map((w: { nodes: unknown[] }) => w.nodes.length)).size).toBe(json.workflows.length);
    for (const workflow of json.workflows) {
      expect(workflow.overridableNodes.length).toBeGreaterThan(0);
      for (const node of workflow.nodes)
        expect(node).toEqual(expect.objectContaining({ id: expect.any(String), type: expect.any(String), label: expect.any(String) }));
    }
  });

  it('finishes a run of N nodes on the N-th poll, with each node output, and leaves it unchanged after', async () => {
    const { json: workflows } = await mock.call('GET', '/api/v1/workflows', { auth: 'session' });
    for (const workflow of workflows.workflows) {
      const { json: run } = await mock.call('POST', `/api/v1/workflows/${workflow.id}/run`, {
        auth: 'session',
        body: { overrides: { [workflow.overridableNodes[0]]: 'a frog knight' } },
      });
      expect(run).toMatchObject({ status: 'queued', completedNodes: 0, totalNodes: workflow.nodes.length });
      let last = run;
      for (let poll = 1; poll <= workflow.nodes.length; poll++) {
        last = (await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json;
        expect(last.completedNodes).toBe(poll);
        expect(last.status).toBe(poll === workflow.nodes.length ? 'succeeded' : 'running');
        expect(last.nodes[poll - 1].status).toBe('succeeded');
        expect(last.nodes[poll - 1].output).toBeDefined();
      }
      expect(last.nodes[0].output).toEqual({ text: 'a frog knight' });
      for (let extra = 0; extra < 3; extra++) {
        const again = (await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json;
        expect(again).toEqual(last);
      }
      expect(last.currentNode).toBeNull();
      for (const node of last.nodes) expect(node.output).toBeDefined();
      for (const output of last.outputs) expect((await fetch(output.url)).headers.get('content-type')).toBe('image/png');
    }
  });

  it('accepts overrides only for overridable nodes, naming the node otherwise', async () => {
    for (const node of ['palette', 'nope']) {
      const result = await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { body: { overrides: { [node]: 'x' } } });
      expect(result.status).toBe(400);
      expectErrorShape(result.json, 'invalid_override');
      expect(result.json.error.node).toBe(node);
    }
    expect((await mock.call('POST', '/api/v1/workflows/wf_nope/run')).status).toBe(404);
    expect((await mock.call('GET', '/api/v1/runs/run_nope')).status).toBe(404);
    expect((await mock.state()).ledger).toEqual([]);
  });
});

describe('agents', () => {
  it('lists the seeded agents and rejects unknown or wrong-kind agents with 4xx', async () => {
    const { json } = await mock.call('GET', '/api/ai/agents', { auth: 'session' });
    expect(json.agents.map((a: { id: string; kind: string }) => `${a.id}:${a.kind}`)).toEqual([
      'sprite-artist:image',
      'tile-smith:image',
      'icon-forge:image',
      'motion-director:video',
    ]);
    const unknown = { agentId: 'nobody', prompt: 'x' };
    for (const [path, auth, body] of [
      ['/api/v1/generate', 'key', unknown],
      ['/api/ai/generate', 'session', unknown],
      ['/api/ai/stream', 'session', unknown],
      ['/api/v1/video', 'key', { prompt: 'x', agentId: 'nobody' }],
    ] as const) {
      const result = await mock.call('POST', path, { auth, body });
      expect(result.status, path).toBe(404);
      expectErrorShape(result.json, 'unknown_agent');
    }
    for (const [path, auth, body] of [
      ['/api/v1/generate', 'key', { agentId: 'motion-director', prompt: 'x' }],
      ['/api/ai/generate', 'session', { agentId: 'motion-director', prompt: 'x' }],
      ['/api/ai/stream', 'session', { agentId: 'motion-director', prompt: 'x' }],
      ['/api/v1/video', 'key', { prompt: 'x', agentId: 'tile-smith' }],
    ] as const) {
      const result = await mock.call('POST', path, { auth, body });
      expect(result.status, path).toBe(400);
      expectErrorShape(result.json, 'wrong_agent_kind');
      expect(result.json.error.agentId).toBe(body.agentId);
    }
    expect(json.agents.every((a: Record<string, unknown>) => typeof a.name === 'string' && typeof a.description === 'string')).toBe(true);
    expect((await mock.state()).ledger).toEqual([]);
  });
});
