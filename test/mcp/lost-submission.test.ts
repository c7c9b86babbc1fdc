// A paid submission whose answer never reaches assetgen (an MCP client that cancels the call, or
// disconnects, while the service holds it) is journalled with its Idempotency-Key before it is
// sent: `assetgen jobs` (and list_jobs) then give the command that asks for the same job again,
// which the service answers with the job it made: one charge, the video saved. The same for an
// image (generate_image): its answer is the image, so a lost one is the whole purchase.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resubmitToolCall } from '../../src/cli/resume.js';
import { parseJson, runCli, runInProcess, shellWords, spawnCli } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, videoSteps: 1, videoPollAfterMs: 0 } });

const videoCharges = async () => (await project.ledger()).filter((entry) => entry.amount === -180);
const imageCharges = async () => (await project.ledger()).filter((entry) => entry.reason.startsWith('generate '));

type Job = { id: string; kind: string; state: string; resume: string | null; label?: string; resumeTool?: unknown };

/** Calls `tool` while the mock holds `endpoint`, cancels the call once the request is held, then lets the service finish it. */
async function cancelWhileHeld(session: McpSession, endpoint: string, tool: string, args: Record<string, unknown>): Promise<void> {
  await project.mock.hold([endpoint]);
  const controller = new AbortController();
  const call = session.client
    .callTool({ name: tool, arguments: args }, undefined, { signal: controller.signal, timeout: 20_000 })
    .catch((error: unknown) => error);
  await until(`the ${endpoint} call held`, async () => (await project.mock.state()).held >= 1);
  controller.abort();
  await call;
  await project.mock.hold([]);
}

describe('a submission whose answer never comes back', () => {
  for (const ending of ['cancelled', 'disconnected'] as const) {
    it(`create_video ${ending} while the service holds it: journalled, and resumed for no second charge`, async () => {
      await project.mock.hold(['createVideo']);
      const session = await startMcp({ env: project.env(), cwd: project.cwd });
      const controller = new AbortController();
      const call = session.client
        .callTool({ name: 'create_video', arguments: { prompt: 'lost lava', confirm_credits: 180, wait: true } }, undefined, {
          signal: controller.signal,
          timeout: 20_000,
        })
        .catch((error: unknown) => error);
      await until('the submission held', async () => (await project.mock.state()).held >= 1);
      if (ending === 'cancelled') controller.abort();
      await session.close();
      await call;
      await project.mock.hold([]);
      await until('the video charged', async () => (await videoCharges()).length === 1);

      const listed = await runCli(['jobs', '--json'], { env: project.env(), cwd: project.cwd });
      expect(listed.code, listed.stderr).toBe(0);
      const jobs = parseJson(listed).jobs as Job[];
      const pending = jobs.find((job) => job.state === 'submitting');
      expect(pending, JSON.stringify(jobs)).toMatchObject({ label: 'lost lava', resume: expect.stringContaining('--idempotency-key') });

      const resumed = await runCli([...shellWords(pending!.resume!).slice(1), '--json'], {
        env: project.env(),
        cwd: project.cwd,
        timeoutMs: 30_000,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      const video = parseJson(resumed);
      expect(video.status).toBe('succeeded');
      expect(await videoCharges()).toHaveLength(1);
      expect(video.id).toBe((await videoCharges())[0]!.reason.split(' ')[1]);
      // The submission is answered now: nothing left to resume for it.
      const after = parseJson(await runCli(['jobs', '--json'], { env: project.env(), cwd: project.cwd })).jobs as Job[];
      expect(after.filter((job) => job.resume !== null)).toEqual([]);
    });
  }
});

describe('an image whose answer never comes back', () => {
  it('generate_image cancelled while the service holds it: list_jobs gives the same call with its key, which saves the image for no second charge', async () => {
    const before = (await imageCharges()).length;
    const session = await startMcp({ env: project.env(), cwd: project.cwd });
    try {
      await cancelWhileHeld(session, 'generate', 'generate_image', {
        prompt: '-dash lost gem',
        agent: 'sprite-artist',
        output: 'lost/gem.png',
      });
      await until('the image charged', async () => (await imageCharges()).length === before + 1);

      const listed = await session.call('list_jobs');
      const pending = (listed.json.jobs as Job[]).find((job) => job.kind === 'image' && job.state === 'submitting');
      // The prompt starts with "-": the command puts it after `--`, the tool call as `prompt`.
      expect(pending, JSON.stringify(listed.json)).toMatchObject({
        label: '-dash lost gem',
        resume: expect.stringMatching(
          new RegExp(
            `^assetgen generate --agent sprite-artist --idempotency-key \\S+ -o ${path.join(project.cwd, 'lost', 'gem.png')} -- '-dash lost gem'$`,
          ),
        ),
        resumeTool: {
          tool: 'generate_image',
          arguments: {
            prompt: '-dash lost gem',
            agent: 'sprite-artist',
            output: path.join('lost', 'gem.png'),
            idempotency_key: expect.any(String),
          },
        },
      });
      const { tool, arguments: args } = pending!.resumeTool as { tool: string; arguments: Record<string, unknown> };
      const again = await session.call(tool, args);
      expect(again.result.isError, JSON.stringify(again.json)).toBeFalsy();
      expect(fs.existsSync(path.join(project.cwd, 'lost', 'gem.png'))).toBe(true);
      expect(await imageCharges()).toHaveLength(before + 1);
      const after = (await session.call('list_jobs')).json.jobs as Job[];
      expect(after.filter((job) => job.resume !== null)).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe('a run whose submission answer never came back', () => {
  it('run_workflow cancelled, then list_jobs’ resumeTool followed: one charge, and the journal says what the run cost (not the replay’s 0)', async () => {
    const runCharges = async () => (await project.ledger()).filter((entry) => entry.reason.startsWith('run '));
    const before = (await runCharges()).length;
    const session = await startMcp({ env: project.env(), cwd: project.cwd });
    try {
      await cancelWhileHeld(session, 'runWorkflow', 'run_workflow', { id: 'wf_sprite_sheet', output_dir: 'sprites/lost' });
      await until('the run charged', async () => (await runCharges()).length === before + 1);
      const pending = ((await session.call('list_jobs')).json.jobs as Job[]).find(
        (job) => job.kind === 'run' && job.state === 'submitting',
      );
      const { tool, arguments: args } = pending!.resumeTool as { tool: string; arguments: Record<string, unknown> };
      expect(tool).toBe('run_workflow');
      const again = await session.call(tool, args, { timeoutMs: 30_000 });
      expect(again.result.isError, JSON.stringify(again.json)).toBeFalsy();
      const charges = await runCharges();
      expect(charges).toHaveLength(before + 1);
      const run = ((await session.call('list_jobs')).json.jobs as (Job & { creditsCharged?: number })[]).find(
        (job) => job.id === again.json.id,
      );
      expect(run?.creditsCharged).toBe(-charges.at(-1)!.amount);
    } finally {
      await session.close();
    }
  });
});

describe('a generate killed while the service holds it', () => {
  it('kill -9: `assetgen jobs` run from another folder gives the command that saves the image where it was asked, one charge', async () => {
    const before = (await imageCharges()).length;
    await project.mock.hold(['generate']);
    const child = spawnCli(['generate', 'a killed key', '--agent', 'sprite-artist', '-o', 'keys/'], {
      env: project.env(),
      cwd: project.cwd,
    });
    try {
      await until('the generate held', async () => (await project.mock.state()).held >= 1);
    } finally {
      child.kill('SIGKILL');
    }
    await project.mock.hold([]);
    await until('the image charged', async () => (await imageCharges()).length === before + 1);

    const elsewhere = fs.mkdtempSync(path.join(project.home.home, 'elsewhere-'));
    const listed = parseJson(await runInProcess(['jobs', '--json'], { env: project.env(), cwd: elsewhere })).jobs as Job[];
    const pending = listed.find((job) => job.kind === 'image' && job.state === 'submitting' && job.label === 'a killed key');
    expect(pending?.resume, JSON.stringify(listed)).toContain(`-o ${path.join(project.cwd, 'keys')}${path.sep}`);
    const resumed = await runInProcess(shellWords(pending!.resume!).slice(1), { env: project.env(), cwd: elsewhere });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(fs.readdirSync(path.join(project.cwd, 'keys'))).toHaveLength(1);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(await imageCharges()).toHaveLength(before + 1);
  });
});

describe('resubmitToolCall: the journalled command words as the tool call that sends the same request', () => {
  const cwd = path.resolve('/work/project');
  it('generate, video create and workflows run', () => {
    expect(
      resubmitToolCall(
        [
          'generate',
          '--agent',
          'a',
          '--variants',
          '3',
          '--idempotency-key',
          'k',
          '-o',
          path.join(cwd, 'x') + path.sep,
          '--force',
          '--yes',
          '--',
          '-p',
        ],
        cwd,
      ),
    ).toEqual({
      tool: 'generate_image',
      arguments: {
        prompt: '-p',
        agent: 'a',
        output: `x${path.sep}`,
        overwrite: true,
        idempotency_key: 'k',
        variants: 3,
        confirm_paid_calls: 3,
      },
    });
    expect(
      resubmitToolCall(['video', 'create', 'lava', '--duration', '4', '--yes', '-o', `${cwd}${path.sep}`, '--idempotency-key', 'k'], cwd),
    ).toEqual({
      tool: 'create_video',
      arguments: { prompt: 'lava', duration_seconds: 4, confirm_credits: 180, wait: true, idempotency_key: 'k' },
    });
    expect(
      resubmitToolCall(
        ['workflows', 'run', 'wf_1', '-s', 'hero=a = b', '-s', 'sky=c', '-o', path.join(cwd, 'out'), '--idempotency-key', 'k'],
        cwd,
      ),
    ).toEqual({
      tool: 'run_workflow',
      arguments: { id: 'wf_1', overrides: { hero: 'a = b', sky: 'c' }, output_dir: 'out', idempotency_key: 'k' },
    });
  });

  it('none for a streamed generate (no tool calls the session endpoint) or words without a key', () => {
    expect(resubmitToolCall(['generate', 'p', '--agent', 'a', '--stream', '--idempotency-key', 'k'], cwd)).toBeNull();
    expect(resubmitToolCall(['generate', 'p', '--agent', 'a'], cwd)).toBeNull();
  });
});
