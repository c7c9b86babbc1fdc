// A shard's first run (--lock-out, no lock-out file yet) killed while it follows a paid video job
// leaves only the journal beside its lock-out: the rerun folds it in and resumes the job by its id
// (even where the service has forgotten the key), never submitting (and paying for) it again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { collect, parseJson, runCli, runInProcess, spawnCli } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, videoSteps: 2, videoPollAfterMs: 200 } });
const MANIFEST =
  'assets:\n  - { id: lava, video: lava flowing, out: fx/ }\n  - { id: gem, prompt: a red gem, agent: sprite-artist, out: items/ }\n';

describe('kill -9 during a shard’s first --lock-out run', () => {
  it('the rerun resumes the paid job from the journal, and keeps what the project’s lock had', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST);
    // The project's lock already has gem: built before, by another job.
    const first = await runCli(['build', 'gem', '--yes', '-q'], { env: project.env(), cwd: project.cwd, timeoutMs: 30_000 });
    expect(first.code, first.stderr).toBe(0);
    const args = ['build', '--yes', '--shard', '1/1', '--lock-out', 'shard-1.lock'];
    await project.mock.hold(['getVideo']);
    const child = spawnCli([...args, '-q'], { env: project.env(), cwd: project.cwd });
    const exited = collect(child, 30_000);
    await until('the first poll held', async () => (await project.mock.state()).held >= 1);
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    expect(fs.existsSync(path.join(project.cwd, 'shard-1.lock'))).toBe(false);
    expect(fs.existsSync(path.join(project.cwd, '.shard-1.lock.journal'))).toBe(true);
    // Every reader sees the shard as its rerun will: the dry run plans lava's job as in flight (no new
    // charge), and `lock merge` takes the shard from its journal over the project's lock.
    const planned = parseJson(
      await runInProcess(['build', '--dry-run', '--json', '--shard', '1/1', '--lock-out', 'shard-1.lock'], {
        env: project.env(),
        cwd: project.cwd,
      }),
    );
    const actions = Object.fromEntries((planned.items as { id: string; action: string }[]).map((item) => [item.id, item.action]));
    expect(actions).toEqual({ lava: 'resume', gem: 'none' });
    const merged = await runInProcess(['lock', 'merge', 'shard-1.lock'], { env: project.env(), cwd: project.cwd });
    expect(merged.code, merged.stderr).toBe(0);
    expect(readLock(path.join(project.cwd, 'assetgen.lock')).assets.lava?.job?.jobId).toMatch(/^vid_/);
    // The service forgets idempotency keys (as after a day): only the job id can save the payment.
    await project.mock.config({ idempotency: { maxAgeMs: 1 } });
    await project.mock.hold([]);

    const rerun = await runCli([...args, '--json'], { env: project.env(), cwd: project.cwd, timeoutMs: 30_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    const outcomes = Object.fromEntries(
      (parseJson(rerun).items as { id: string; outcome: string }[]).map((item) => [item.id, item.outcome]),
    );
    expect(outcomes).toEqual({ lava: 'resumed', gem: 'unchanged' });
    const videos = (await project.ledger()).filter((entry) => entry.amount === -180);
    expect(videos).toHaveLength(1);
    const lock = readLock(path.join(project.cwd, 'shard-1.lock'));
    expect(lock.assets.lava?.jobId).toBe(videos[0]!.reason.split(' ')[1]);
    expect(lock.assets.gem?.files).toHaveLength(1);
  });
});
