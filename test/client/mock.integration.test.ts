// The client against the bundled mock (src/mock) on loopback: the contract in practice, including
// idempotent retries under injected faults leaving exactly one charge per logical call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, JobFailedError, type AssetgenClient, type ClientOptions, type StreamEvent } from '../../src/index.js';
import { startMockServer, type MockServer } from '../../src/mock/index.js';

interface MockState {
  credits: number;
  ledger: { amount: number; reason: string }[];
  requests: number;
}

let mock: MockServer;
const clients: AssetgenClient[] = [];
let dir: string;

async function admin<T>(route: 'state' | 'reset' | 'config', body?: unknown): Promise<T> {
  const response = await fetch(`${mock.url}/__mock/${route}`, {
    method: route === 'state' ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.ok).toBe(true);
  return (await response.json()) as T;
}
const state = () => admin<MockState>('state');

function client(options: Partial<ClientOptions> = {}): AssetgenClient {
  const made = createClient({ baseUrl: mock.url, apiKey: mock.apiKey, retryBaseDelayMs: 5, retryMaxDelayMs: 20, ...options });
  clients.push(made);
  return made;
}

describe('against the bundled mock', () => {
  beforeAll(async () => {
    mock = await startMockServer({ seed: 42 });
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(async () => {
    await admin('reset');
    await admin('config', { videoPollAfterMs: 5, videoSteps: 2, streamStepMs: 2, latencyMs: 0, faults: { rate: 0, kinds: [] } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-mock-'));
  });
  afterEach(async () => {
    for (const made of clients.splice(0)) await made.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('generates an image and downloads a real PNG, charged once', async () => {
    const before = await state();
    const c = client();
    const generation = await c.generate({ agentId: 'sprite-artist', prompt: 'rusty sword icon' });
    expect(generation.assetUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(generation.credits.charged).toBeGreaterThan(0);
    const file = path.join(dir, 'sword.png');
    const saved = await c.download(generation.assetUrl, file);
    expect(saved.contentType).toMatch(/image\/png/);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(bytes.length).toBe(saved.bytes);
    const after = await state();
    expect(before.credits - after.credits).toBe(generation.credits.charged);
    expect(generation.credits.remaining).toBe(after.credits);
  });

  it('runs every seeded workflow of N nodes with exactly N polls', async () => {
    const c = client();
    const workflows = await c.listWorkflows();
    expect(workflows.length).toBeGreaterThanOrEqual(3);
    for (const workflow of workflows) {
      expect(workflow.overridableNodes.length).toBeGreaterThan(0);
      let runGets = 0;
      const counting = client({ onRequest: (info) => void (info.method === 'GET' && info.url.includes('/api/v1/runs/') && runGets++) });
      const overrides = { [workflow.overridableNodes[0]!]: 'a dwarf miner' };
      const run = await counting.runWorkflow(workflow.id, overrides);
      expect(run).toMatchObject({ state: 'queued', completedNodes: 0, totalNodes: workflow.nodes.length });
      const before = await state();
      const done = await counting.waitForRun(run.id, { initial: run });
      const after = await state();
      expect(done.state).toBe('succeeded');
      expect(done.completedNodes).toBe(workflow.nodes.length);
      expect(runGets).toBe(workflow.nodes.length);
      expect(after.requests - before.requests).toBe(workflow.nodes.length); // the mock counts public API requests only
      for (const output of done.outputs.filter((o) => o.url)) {
        const saved = await counting.download(output.url!, path.join(dir, `${run.id}-${output.nodeId}.png`));
        expect(saved.bytes).toBeGreaterThan(0);
      }
    }
  });

  it('maps the mock errors: bad override, unknown workflow, unknown agent, session-only', async () => {
    const c = client();
    const [workflow] = await c.listWorkflows();
    const fixed = workflow!.nodes.find((node) => !node.overridable)!;
    await expect(c.runWorkflow(workflow!.id, { [fixed.id]: 'x' })).rejects.toMatchObject({
      name: 'InvalidRequestError',
      code: 'invalid_override',
    });
    await expect(c.runWorkflow('wf_nope')).rejects.toMatchObject({ name: 'NotFoundError', code: 'workflow_not_found' });
    await expect(c.generate({ agentId: 'nobody', prompt: 'p' })).rejects.toMatchObject({ name: 'NotFoundError', code: 'unknown_agent' });
    await expect(c.listAgents()).rejects.toMatchObject({ name: 'MissingCredentialsError' });
    const wrongKey = client({ apiKey: 'agk_0000000000000000000000000000000000000000' });
    await expect(wrongKey.listWorkflows()).rejects.toMatchObject({ name: 'AuthenticationError', status: 401 });
  });

  it('reports insufficient credits without charging', async () => {
    await admin('config', { credits: 42 });
    const error = await client()
      .createVideo({ prompt: 'a dragon' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InsufficientCreditsError', required: 180, balance: 42 });
    expect((await state()).credits).toBe(42);
  });

  it('waits for a video that succeeds, then downloads it', async () => {
    await admin('config', { videoOutcome: 'succeed' });
    const c = client();
    const job = await c.createVideo({ prompt: 'a dragon takes off', durationSeconds: 2 });
    expect(job.credits.charged).toBe(180);
    const done = await c.waitForVideo(job.id, { initial: job });
    expect(done.state).toBe('succeeded');
    const saved = await c.download(done.assetUrl!, path.join(dir, 'dragon.mp4'));
    expect(saved.contentType).toMatch(/^(video\/|image\/gif)/); // the mock's videos are animated GIFs
    expect(saved.bytes).toBeGreaterThan(0);
  });

  it('a failed video is refunded: JobFailedError, 180 back in the ledger', async () => {
    await admin('config', { videoOutcome: 'fail' });
    const c = client();
    const before = await state();
    const job = await c.createVideo({ prompt: 'a dragon' });
    let polls = 0;
    const error = await c.waitForVideo(job.id, { initial: job, onProgress: () => polls++ }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ jobId: job.id, refunded: true });
    expect((error as Error).message).toMatch(/180 credits were refunded/);
    const after = await state();
    expect(after.ledger.filter((entry) => entry.amount === 180)).toHaveLength(1);
    expect(before.credits - after.credits).toBe(polls); // only the polls (1 each with a key) remain charged
  });

  it('streams events with a session', async () => {
    const c = client({ apiKey: undefined, sessionCookie: mock.sessionCookie });
    const events: StreamEvent[] = [];
    for await (const event of c.stream({ agentId: 'sprite-artist', prompt: 'glowing potion' })) events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('start');
    expect(types.filter((t) => t === 'progress').length).toBeGreaterThanOrEqual(3);
    const result = events.find((e): e is Extract<StreamEvent, { type: 'result' }> => e.type === 'result');
    expect(result?.generation.assetUrl).toMatch(/^http/);
    expect(types.at(-1)).toBe('done');
    const agents = await c.listAgents();
    expect(agents.map((a) => a.id)).toContain('sprite-artist');
  });

  it('under injected faults, every paid call is charged exactly once', async () => {
    const c = client({ maxRetries: 12 });
    await admin('config', { faults: { rate: 0.5, kinds: ['500', 'reset', 'truncate'] }, seed: 42 });
    const calls = 8;
    let retries = 0;
    const flaky = client({ maxRetries: 12, onRetry: () => void retries++ });
    for (let i = 0; i < calls; i++) {
      const generation = await flaky.generate({ agentId: 'sprite-artist', prompt: `crate ${i}` });
      expect(generation.assetUrl).toBeTruthy();
    }
    const video = await flaky.createVideo({ prompt: 'waves' });
    await admin('config', { faults: { rate: 0, kinds: [] } });
    const { ledger } = await state();
    const generateCharges = ledger.filter((entry) => entry.amount === -10);
    expect(generateCharges).toHaveLength(calls);
    expect(ledger.filter((entry) => entry.amount === -180)).toHaveLength(1);
    expect(video.id).toBeTruthy();
    expect(retries).toBeGreaterThan(0); // the faults really happened
    await c.close();
  });
});
