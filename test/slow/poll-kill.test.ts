// A build killed (kill -9) while it follows a paid video job: the lock never says the job cost
// less than the mock's ledger says. Killed while it waits between polls, the resume records the
// exact total (each answered poll is journalled); killed while a poll is out, whose charge no one
// can tell, the resume records the cost as not known (null), never a figure short of the ledger.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { collect, parseJson, runCli, spawnCli } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, videoSteps: 2, videoPollAfterMs: 200 } });
const MANIFEST = 'assets:\n  - { id: torch, video: a torch flickering, out: fx/ }\n';

/** What the ledger charged for the video job `jobId` (its submission and its polls), refunds counted. */
async function ledgerCost(jobId: string): Promise<number> {
  return -(await project.ledger()).filter((entry) => entry.reason.includes(jobId)).reduce((sum, entry) => sum + entry.amount, 0);
}

const lockFile = () => path.join(project.cwd, 'assetgen.lock');
const job = () =>
  fs.existsSync(path.join(project.cwd, '.assetgen.lock.journal')) || fs.existsSync(lockFile())
    ? readLock(lockFile()).assets.torch?.job
    : undefined;

describe('kill -9 while a build follows a video job', () => {
  it('between polls: the resume records exactly what the ledger charged', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST);
    // Polls 3 s apart (the service's hint): the kill below lands in that wait, however slow the machine.
    await project.mock.config({ videoPollAfterMs: 3000 });
    await project.mock.hold(['getVideo']);
    const child = spawnCli(['build', '--yes', '-q'], { env: project.env(), cwd: project.cwd });
    const exited = collect(child, 30_000);
    await until('the first poll held', async () => (await project.mock.state()).held >= 1);
    await project.mock.hold([]);
    // The poll answered and journalled (180 + 1); the build now waits 3 s before the next one.
    await until('the answered poll in the journal', () => job()?.credits === 181);
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');

    const resumed = await runCli(['build', '--yes', '--json'], { env: project.env(), cwd: project.cwd, timeoutMs: 30_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson(resumed).items).toMatchObject([{ id: 'torch', outcome: 'resumed' }]);
    const entry = readLock(lockFile()).assets.torch!;
    expect(entry.credits).toBe(await ledgerCost(entry.jobId!));
    expect(entry.credits).toBe(182);
  });

  it('during a poll: the resume records the cost as not known, not a figure short of the ledger', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST);
    await project.mock.hold(['getVideo']);
    const child = spawnCli(['build', '--yes', '-q'], { env: project.env(), cwd: project.cwd });
    const exited = collect(child, 30_000);
    await until('the first poll held', async () => (await project.mock.state()).held >= 1);
    // The poll is out: the journal says its charge is not known yet.
    expect(job()).toMatchObject({ jobId: expect.stringMatching(/^vid_/) });
    expect(job()!.credits).toBeUndefined();
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    // The service goes on with the poll the dead build sent, and charges it.
    await project.mock.hold([]);
    await until('the orphaned poll charged', async () => (await ledgerCost(job()!.jobId!)) === 181);

    const resumed = await runCli(['build', '--yes', '--json'], { env: project.env(), cwd: project.cwd, timeoutMs: 30_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson(resumed).items).toMatchObject([{ id: 'torch', outcome: 'resumed', cost: null }]);
    const entry = readLock(lockFile()).assets.torch!;
    expect(entry.credits).toBeNull();
    expect(await ledgerCost(entry.jobId!)).toBe(182);
  });

  it('during a poll made with a session (not charged): the resume records the exact total', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST);
    // The key pays the submission; polls, which are not paid calls, go with the session: free.
    const env = { ...project.env(), ASSETGEN_SESSION: project.mock.sessionCookie };
    await project.mock.hold(['getVideo']);
    const child = spawnCli(['build', '--yes', '-q'], { env, cwd: project.cwd });
    const exited = collect(child, 30_000);
    await until('the first poll held', async () => (await project.mock.state()).held >= 1);
    // The poll is out, and its charge is known already (none): the journal keeps the job's total.
    expect(job()).toMatchObject({ jobId: expect.stringMatching(/^vid_/), credits: 180 });
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    await project.mock.hold([]);

    const resumed = await runCli(['build', '--yes', '--json'], { env, cwd: project.cwd, timeoutMs: 30_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const entry = readLock(lockFile()).assets.torch!;
    expect(entry.credits).toBe(180);
    expect(await ledgerCost(entry.jobId!)).toBe(180);
  });
});
