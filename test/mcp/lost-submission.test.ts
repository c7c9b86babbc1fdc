// A paid submission whose answer never reaches assetgen (an MCP client that cancels the call, or
// disconnects, while the service holds it) is journalled with its Idempotency-Key before it is
// sent: `assetgen jobs` (and list_jobs) then give the command that asks for the same job again,
// which the service answers with the job it made: one charge, the video saved.
import { describe, expect, it } from 'vitest';
import { parseJson, runCli, shellWords } from '../support/cli.js';
import { startMcp } from '../support/mcp.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, videoSteps: 1, videoPollAfterMs: 0 } });

const videoCharges = async () => (await project.ledger()).filter((entry) => entry.amount === -180);

type Job = { id: string; state: string; resume: string | null; label?: string };

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
