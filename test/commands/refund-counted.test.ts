// A failed video job's refund in a command's `credits`, held to the service's ledger. The service
// refunds a failed job by itself, on its own clock (service-api §3.2), and the service document
// shows no record bodies: so a refund is counted only when an answer states it (its amount when
// given), and only by the command that saw it happen — one whose earlier answer showed the job
// unfinished. A job already failed and refunded at a command's first answer is told, not counted
// again: each command's `credits` moves as the ledger did while it ran (docs/cli.md, "Credits").
import { afterEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { chargingService, POLL_PRICE, VIDEO_PRICE } from '../support/charging-service.js';
import { KEY, startServer, useScriptedService, type TestServer } from '../support/http.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { useMockProject } from '../support/project.js';

describe('a failed video job whose record does not state a refund (the service refunds it 60 s later)', () => {
  const scripted = useScriptedService(runInProcess);
  // Fails at its second poll; refunded a minute later; `refunded` and `refund` never in its records.
  const silent = () => chargingService({ videoOutcome: 'fail', refund: { afterMs: 60_000, stated: false } });

  it('video create: refunded 0 as the ledger has it; "not known yet" and how to look; exit 6', async () => {
    const service = silent();
    const result = await scripted.against(service.handler, ['video', 'create', 'torch', '--yes', '--json', '--timeout', '20s']);
    expect(result.code, result.stderr).toBe(6);
    const error = jsonError(result);
    // Submission and two polls charged; nothing given back yet.
    expect(service.charged()).toBe(VIDEO_PRICE + 2 * POLL_PRICE);
    expect(service.refunded()).toBe(0);
    expect(error.credits).toMatchObject({ charged: service.charged(), refunded: service.refunded() });
    expect(error).toMatchObject({ code: 'job_failed', exitCode: 6, jobId: 'vid_1', job: { resume: null } });
    expect(error).not.toHaveProperty('refunded');
    expect(error.message).toMatch(
      /failed: The renderer gave up\. Its record does not say whether the 180 credits have been refunded yet\./,
    );
    expect(error.hint).toContain('not counted in the credits reported');
    expect(error.hint).toContain('`assetgen video get vid_1`');
  });

  it('human: says the refund is not known yet, never that it was made; the credits line has no refund', async () => {
    const result = await scripted.against(silent().handler, ['video', 'create', 'torch', '--yes', '--timeout', '20s']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('does not say whether the 180 credits have been refunded yet');
    expect(result.stderr).not.toMatch(/were refunded|refunded 180/);
  });

  it('video get: the record read as it is — the refund not known, no `refunded` made up', async () => {
    const service = silent();
    // The job fails at the second poll: the first `get` sees it running, the second failed.
    expect((await scripted.against(service.handler, ['video', 'get', 'vid_1'])).code).toBe(0);
    const env = { ...scripted.home.env, ASSETGEN_BASE_URL: scripted.server.url, ASSETGEN_API_KEY: KEY };
    const human = await runInProcess(['video', 'get', 'vid_1'], { env, cwd: scripted.home.cwd });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain('Its record does not say whether the 180 credits have been refunded yet.');
    expect(human.stderr).not.toContain('were refunded');
    const json = await runInProcess(['video', 'get', 'vid_1', '--json'], { env, cwd: scripted.home.cwd });
    expect(parseJson(json)).not.toHaveProperty('refunded');
    expect(parseJson(json).credits).toMatchObject({ refunded: 0 });
    expect(service.refunded()).toBe(0);
  });

  it('a stated refund counts at the amount the record states (a partial 150), as the ledger has it', async () => {
    const service = chargingService({ videoOutcome: 'fail', refund: { amount: 150 } });
    const result = await scripted.against(service.handler, ['video', 'create', 'torch', '--yes', '--json', '--timeout', '20s']);
    expect(result.code, result.stderr).toBe(6);
    const error = jsonError(result);
    expect(service.refunded()).toBe(150);
    expect(error.credits).toMatchObject({ charged: service.charged(), refunded: 150 });
    expect(error).toMatchObject({ refunded: true });
    expect(error.message).toContain('The 150 credits were refunded.');
  });
});

describe('a refund counted once, by the command that saw it happen (the bundled mock)', () => {
  // The mock reset before each test (each test sets its own config), a temp home, the ledger.
  const project = useMockProject({ config: {} });
  const cli = (args: string[]) => project.run(args);
  /** Net credits the ledger took (charges minus refunds) while `work` ran, and its refunds meanwhile. */
  async function ledgerDuring<T>(work: () => Promise<T>): Promise<{ result: T; net: number; refunds: number }> {
    const before = (await project.mock.state()).ledger.length;
    const result = await work();
    const entries = (await project.mock.state()).ledger.slice(before);
    const net = -entries.reduce((sum, entry) => sum + entry.amount, 0);
    const refunds = entries.filter((entry) => entry.amount > 0).reduce((sum, entry) => sum + entry.amount, 0);
    return { result, net, refunds };
  }
  /** Until the mock has refunded `id` on its own clock (it fails a job a second after its last poll was due): at most 5 s. */
  async function refunded(id: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if ((await project.mock.state()).ledger.some((entry) => entry.reason === `refund ${id}` && entry.amount > 0)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the mock did not refund ${id} within 5 s`);
  }

  it('a job failed and refunded before any wait: three `video wait`s each count no refund; the ledger has one', async () => {
    await project.mock.config({ videoOutcome: 'fail', videoSteps: 1, videoPollAfterMs: 0 });
    const created = await cli(['video', 'create', 'torch', '--yes', '--no-wait', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const id = parseJson(created).id as string;
    await refunded(id);
    for (let wait = 1; wait <= 3; wait++) {
      const { result, net, refunds } = await ledgerDuring(() => cli(['video', 'wait', id, '--json']));
      expect(result.code, result.stderr).toBe(6);
      const error = jsonError(result);
      // The record says it was refunded (told), but not while this command ran (not counted).
      expect(refunds).toBe(0);
      expect(error.credits).toMatchObject({ charged: 1, refunded: 0 });
      expect(error.credits.charged - error.credits.refunded).toBe(net);
      expect(error).toMatchObject({ code: 'job_failed', refunded: true });
      expect(error.hint).toContain("refunded already at this command's first answer about it");
    }
    const ledger = (await project.mock.state()).ledger;
    expect(ledger.filter((entry) => entry.amount > 0).map((entry) => entry.amount)).toEqual([VIDEO_PRICE]);
  });

  it('a job seen running, then failed and refunded: that command counts the refund, as the ledger moved', async () => {
    await project.mock.config({ videoOutcome: 'fail', videoSteps: 2, videoPollAfterMs: 0 });
    const { result, net, refunds } = await ledgerDuring(() => cli(['video', 'create', 'torch', '--yes', '--json']));
    expect(result.code, result.stderr).toBe(6);
    const error = jsonError(result);
    expect(refunds).toBe(VIDEO_PRICE);
    expect(error.credits).toMatchObject({ refunded: VIDEO_PRICE });
    expect(error.credits.charged - error.credits.refunded).toBe(net);
    expect(error.hint ?? '').not.toContain('not counted');
  });

  it('a replayed submission (the same --idempotency-key) is old news: the refund made before is not counted again', async () => {
    await project.mock.config({ videoOutcome: 'fail', videoSteps: 1, videoPollAfterMs: 0 });
    const key = ['--idempotency-key', 'torch-once'];
    const first = await cli(['video', 'create', 'torch', '--yes', '--no-wait', '--json', ...key]);
    expect(first.code, first.stderr).toBe(0);
    await refunded(parseJson(first).id as string);
    // The replay's body says "queued" (the stored answer), but the job failed and was refunded since.
    const { result, net, refunds } = await ledgerDuring(() => cli(['video', 'create', 'torch', '--yes', '--json', ...key]));
    expect(result.code, result.stderr).toBe(6);
    const error = jsonError(result);
    expect(refunds).toBe(0);
    expect(error.credits).toMatchObject({ charged: 1, refunded: 0 });
    expect(error.credits.charged - error.credits.refunded).toBe(net);
  });

  describe('over MCP (wait_video shares the rule)', () => {
    let mcp: McpSession | undefined;
    afterEach(async () => {
      await mcp?.close();
      mcp = undefined;
    });

    it('wait_video on a job refunded before the call: refunded 0 each time; the ledger has one refund', async () => {
      await project.mock.config({ videoOutcome: 'fail', videoSteps: 1, videoPollAfterMs: 0 });
      const submitted = await project.mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
      expect(submitted.status).toBe(202);
      const id = submitted.json.id as string;
      await refunded(id);
      mcp = await startMcp({ env: project.env(), cwd: project.home.cwd });
      for (let call = 1; call <= 2; call++) {
        const { result, net } = await ledgerDuring(() => mcp!.call('wait_video', { id, max_wait_seconds: 20 }));
        expect(result.result.isError).toBe(true);
        const error = result.json.error as Record<string, any>;
        expect(error).toMatchObject({ code: 'job_failed', refunded: true });
        expect(error.credits).toMatchObject({ charged: 1, refunded: 0 });
        expect(error.credits.charged - error.credits.refunded).toBe(net);
      }
      expect((await project.mock.state()).ledger.filter((entry) => entry.amount > 0)).toHaveLength(1);
    });
  });
});

describe('over MCP: a record silent about refunds', () => {
  let mcp: McpSession | undefined;
  let home: ReturnType<typeof tempHome> | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await mcp?.close();
    await server?.close();
    home?.remove();
    mcp = server = home = undefined;
  });

  it('wait_video: refunded 0, the refund not known yet, get_video named to look', async () => {
    const service = chargingService({ videoOutcome: 'fail', refund: { afterMs: 60_000, stated: false } });
    server = await startServer(service.handler);
    home = tempHome();
    mcp = await startMcp({ env: { ...home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: KEY }, cwd: home.cwd });
    const outcome = await mcp.call('wait_video', { id: 'vid_1', max_wait_seconds: 20 });
    expect(outcome.result.isError).toBe(true);
    const error = outcome.json.error as Record<string, any>;
    expect(error.credits).toMatchObject({ charged: service.charged(), refunded: service.refunded() });
    expect(error.credits.refunded).toBe(0);
    expect(error.message).toContain('does not say whether the 180 credits have been refunded yet');
    expect(error.hint).toContain('`get_video` with {"id": "vid_1"}');
  });
});
