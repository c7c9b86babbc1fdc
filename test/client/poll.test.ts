import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError, createClient, JobFailedError, type AssetgenClient, type Credits, type Run, type VideoJob } from '../../src/index.js';
import { ChargedAnswerLostError } from '../../src/client/errors.js';
import { MAX_LOST_POLL_ANSWERS, nextVideoDelay } from '../../src/client/poll.js';
import { FAST, json, KEY, startServer, truncated, type TestServer } from '../support/http.js';

let server: TestServer | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

/** A service run of `total` nodes that advances one node per GET, like the real one. */
function runService(total: number, options: { failAt?: number; truncateAt?: number | ((get: number) => boolean); charged?: boolean } = {}) {
  let completed = 0;
  const record = () => ({
    id: 'run_1',
    workflowId: 'wf',
    status:
      options.failAt !== undefined && completed >= options.failAt
        ? 'failed'
        : completed === 0
          ? 'queued'
          : completed >= total
            ? 'succeeded'
            : 'running',
    totalNodes: total,
    completedNodes: completed,
    currentNode: completed < total ? { id: `n${completed + 1}`, label: `Node ${completed + 1}` } : null,
    outputs: Array.from({ length: completed }, (_, i) => ({
      nodeId: `n${i + 1}`,
      url: `/files/run_1-n${i + 1}.png`,
      contentType: 'image/png',
    })),
    ...(options.failAt !== undefined && completed >= options.failAt
      ? { error: { code: 'node_failed', message: 'the model refused' } }
      : {}),
  });
  let gets = 0;
  return {
    get gets() {
      return gets;
    },
    handler: (req: { method?: string }, res: Parameters<typeof json>[0]) => {
      if (req.method === 'POST') return json(res, 201, record());
      gets++;
      const finished = completed >= total || (options.failAt !== undefined && completed >= options.failAt);
      if (!finished) completed++;
      // Each poll charged (a key-authenticated call), as the service's headers say.
      const charge: Record<string, string> = options.charged ? { 'x-credits-charged': '1' } : {};
      const cut = typeof options.truncateAt === 'function' ? options.truncateAt(gets) : gets === options.truncateAt;
      if (cut) return truncated(res, 200, record(), charge);
      json(res, 200, record(), charge);
    },
  };
}

describe('waitForRun', () => {
  for (const total of [1, 3, 6]) {
    it(`waits for a run of ${total} nodes with exactly ${total} polls`, async () => {
      const service = runService(total);
      server = await startServer((req, res) => service.handler(req, res));
      client = createClient({ baseUrl: server.url, apiKey: KEY });
      const initial = await client.runWorkflow('wf');
      expect(initial).toMatchObject({ state: 'queued', completedNodes: 0, totalNodes: total });
      const seen: [number, number][] = [];
      const done = await client.waitForRun(initial.id, { initial, onProgress: (run, polls) => seen.push([run.completedNodes!, polls]) });
      expect(done.state).toBe('succeeded');
      expect(done.outputs).toHaveLength(total);
      expect(done.outputs[0]!.url).toBe(`${server.url}/files/run_1-n1.png`);
      expect(service.gets).toBe(total);
      expect(seen).toEqual(Array.from({ length: total }, (_, i) => [i + 1, i + 1]));
    });
  }

  it('without an initial record, polls until the first terminal answer and no further', async () => {
    const service = runService(3);
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await client.getRun('run_1'); // someone polled once already
    await client.waitForRun('run_1');
    expect(service.gets).toBe(3);
    // A finished run in hand is returned without polling.
    const finished = await client.getRun('run_1');
    await client.waitForRun('run_1', { initial: finished });
    expect(service.gets).toBe(4);
  });

  it('survives a lost poll answer (the retry may see an extra node) and still stops at the end', async () => {
    const service = runService(3, { truncateAt: 2 });
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const initial = await client.runWorkflow('wf');
    const done = await client.waitForRun(initial.id, { initial });
    expect(done.state).toBe('succeeded');
    expect(service.gets).toBe(3); // poll 2 was lost, its retry advanced to node 3 = finished
  });

  it('a charged poll whose answer is lost is counted and not asked again by the client: the wait asks on its next poll', async () => {
    const service = runService(3, { truncateAt: 2, charged: true });
    server = await startServer((req, res) => service.handler(req, res));
    const charges: Credits[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onCredits: (credits) => charges.push(credits) });
    const initial = await client.runWorkflow('wf');
    const done = await client.waitForRun(initial.id, { initial });
    expect(done.state).toBe('succeeded');
    expect(service.gets).toBe(3);
    // Every charged poll reported, the lost one included: what the service took, no more, no less.
    expect(charges.slice(1).map((credits) => credits.charged)).toEqual([1, 1, 1]);
  });

  it('getRun alone: a charged answer lost on the way fails the call after one request, its charge reported', async () => {
    const service = runService(3, { truncateAt: 1, charged: true });
    server = await startServer((req, res) => service.handler(req, res));
    const charges: Credits[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onCredits: (credits) => charges.push(credits) });
    const error = await client.getRun('run_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChargedAnswerLostError);
    expect(error).toMatchObject({ code: 'connection_error', credits: { charged: 1 } });
    expect((error as Error).message).toContain('charged 1 credit for it');
    expect(service.gets).toBe(1);
    expect(charges).toEqual([{ charged: 1 }]);
  });

  it(`gives up after ${MAX_LOST_POLL_ANSWERS} lost charged answers in a row, with the last one's error`, async () => {
    const service = runService(50, { truncateAt: () => true, charged: true });
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const error = await client.waitForRun('run_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChargedAnswerLostError);
    expect(service.gets).toBe(MAX_LOST_POLL_ANSWERS + 1);
  });

  it('throws JobFailedError for a failed run', async () => {
    const service = runService(4, { failAt: 2 });
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const error = await client.waitForRun('run_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ jobId: 'run_1', message: expect.stringContaining('the model refused') });
    expect(service.gets).toBe(2);
  });

  it('stops with AbortedError when aborted between polls', async () => {
    const service = runService(50);
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const controller = new AbortController();
    const error = await client
      .waitForRun('run_1', { signal: controller.signal, intervalMs: 5, onProgress: (_run, polls) => polls === 2 && controller.abort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(service.gets).toBe(2);
  });
});

function videoService(outcome: 'succeed' | 'fail', steps = 2, hint: Record<string, string> = { 'retry-after': '0' }) {
  let polls = 0;
  const record = () => {
    const final = polls >= steps;
    return {
      id: 'vid_1',
      object: 'video_job',
      status: final ? (outcome === 'succeed' ? 'succeeded' : 'failed') : polls === 0 ? 'queued' : 'processing',
      progress: final ? 1 : polls / steps,
      output: final && outcome === 'succeed' ? { url: '/files/vid_1.mp4', contentType: 'video/mp4' } : null,
      error: final && outcome === 'fail' ? { code: 'render_failed', message: 'The renderer crashed' } : null,
      refunded: final && outcome === 'fail',
      refund: final && outcome === 'fail' ? { amount: 180, at: new Date().toISOString() } : null,
      pollAfterMs: 10,
    };
  };
  return {
    get polls() {
      return polls;
    },
    handler: (req: { method?: string }, res: Parameters<typeof json>[0]) => {
      if (req.method === 'POST') return json(res, 202, { ...record(), credits: { charged: 180, remaining: 820 } });
      polls++;
      json(res, 200, record(), polls < steps ? hint : {});
    },
  };
}

describe('waitForVideo', () => {
  it('polls until the job succeeds, with progress', async () => {
    const service = videoService('succeed', 3);
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const job = await client.createVideo({ prompt: 'a dragon', durationSeconds: 4 });
    expect(job).toMatchObject({ id: 'vid_1', state: 'queued', credits: { charged: 180, remaining: 820 }, pollAfterMs: 10 });
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ prompt: 'a dragon', durationSeconds: 4 });
    const updates: VideoJob[] = [];
    const done = await client.waitForVideo(job.id, { initial: job, onProgress: (u) => updates.push(u) });
    expect(done).toMatchObject({ state: 'succeeded', assetUrl: `${server.url}/files/vid_1.mp4`, contentType: 'video/mp4' });
    expect(updates.map((u) => u.state)).toEqual(['running', 'running', 'succeeded']);
    expect(service.polls).toBe(3);
  });

  it('throws JobFailedError saying the credits were refunded', async () => {
    const service = videoService('fail');
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const error = await client.waitForVideo('vid_1', { intervalMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ jobId: 'vid_1', refunded: true });
    expect((error as Error).message).toMatch(/renderer crashed.*180 credits were refunded/);
  });

  it('aborts while waiting', async () => {
    const service = videoService('succeed', 100);
    server = await startServer((req, res) => service.handler(req, res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const controller = new AbortController();
    const waiting = client.waitForVideo('vid_1', { signal: controller.signal, intervalMs: 10_000, onProgress: () => controller.abort() });
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    expect(service.polls).toBe(1);
  });

  it('backs off from the hint by 1.5x up to the cap', () => {
    const delays: number[] = [];
    let delay: number | undefined;
    // The service's hint is followed as it is (a job is noticed when the service says it is ready)…
    for (let i = 0; i < 4; i++) delays.push((delay = nextVideoDelay(delay, 400, 2_000)));
    expect(delays).toEqual([400, 400, 400, 400]);
    expect(nextVideoDelay(600, 5_000, 15_000)).toBe(5_000);
    expect(nextVideoDelay(undefined, 60_000, 15_000)).toBe(15_000); // within the cap
    expect(nextVideoDelay(undefined, 0, 15_000)).toBe(250); // "now" is not a hot loop
    // …and without one, 1 s then ×1.5, capped.
    delay = undefined;
    const backoff: number[] = [];
    for (let i = 0; i < 5; i++) backoff.push((delay = nextVideoDelay(delay, undefined, 2_000)));
    expect(backoff).toEqual([1_000, 1_500, 2_000, 2_000, 2_000]);
  });
});

describe('getRun/getVideo readers', () => {
  it('reads credits from headers when the body has none', async () => {
    server = await startServer((_req, res) =>
      json(
        res,
        200,
        { id: 'run_9', status: 'completed', nodes: [{ id: 'a', status: 'done', output: { url: 'https://cdn.example/a.png' } }] },
        { 'x-credits-charged': '1', 'x-credits-remaining': '41' },
      ),
    );
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const run: Run = await client.getRun('run_9');
    expect(run).toMatchObject({
      state: 'succeeded',
      status: 'completed',
      totalNodes: 1,
      completedNodes: 1,
      credits: { charged: 1, remaining: 41 },
      outputs: [{ nodeId: 'a', url: 'https://cdn.example/a.png' }],
    });
    expect(server.requests[0]!.url).toBe('/api/v1/runs/run_9');
  });

  it('encodes ids into paths, and refuses before sending an id the service could not have given', async () => {
    server = await startServer((_req, res) => json(res, 200, { id: 'x', status: 'queued' }));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await client.getVideo('vid:1.a');
    expect(server.requests[0]!.url).toBe('/api/v1/video/vid%3A1.a');
    for (const id of ['../a b', `vid_${'a'.repeat(200)}`, 'vid_\u001b[31m'])
      await expect(client.getVideo(id)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(client.getRun(' ')).rejects.toThrow('The run id is empty.');
    expect(server.requests).toHaveLength(1);
  });
});
