// Ctrl-C while a key-authenticated poll of a build's video is out and held by the service: the
// poll gets no answer, and the service may still charge it (it does, once released). The lock
// then says the job's cost is not known, as after kill -9, never a figure short of the
// ledger; the next build resumes the job for no second charge.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000, videoSteps: 2, videoPollAfterMs: 0 } });
const spent = async (): Promise<number> => -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);

describe('Ctrl-C while a charged poll is out', () => {
  it('leaves the job’s cost not known in the lock (null), never short of the ledger; the next build finishes it', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), 'assets:\n  - { id: torch, video: a torch, out: assets/fx/ }\n');
    await project.mock.hold(['getVideo']);
    const interrupt = new AbortController();
    // The held poll gets 0.1 s to answer after Ctrl-C (5 s in a real build), and does not.
    const running = project.run(['build', '--yes'], { interrupt: interrupt.signal, answerGraceMs: 100 });
    await until('the poll held', async () => (await project.mock.state()).held >= 1);
    interrupt.abort();
    const result = await running;
    expect(result.code, result.stderr).toBe(130);
    await project.mock.hold([]);
    await until('the held poll charged', async () => (await spent()) === 181);
    const job = readLock(path.join(project.cwd, 'assetgen.lock')).assets.torch!.job;
    expect(job).toMatchObject({ jobId: expect.stringMatching(/^vid_/) });
    expect(job!.credits).toBeUndefined(); // not known (181 before: short of the ledger)

    const resumed = await project.run(['build', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await project.ledger()).filter((entry) => entry.amount === -180)).toHaveLength(1);
    const entry = readLock(path.join(project.cwd, 'assetgen.lock')).assets.torch!;
    // Not known: never a figure short of the ledger.
    expect(entry.credits).toBeNull();
  });
});
