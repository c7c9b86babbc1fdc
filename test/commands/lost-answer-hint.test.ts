// A paid call whose answer is lost (the service charged, the connection dropped mid-answer): the
// advice that comes first is the one that decides the next attempt's cost (ask again with the
// key), and nothing says "try again", which without the key would pay twice.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000 } });

describe('a lost answer to a paid call', () => {
  for (const kind of ['truncate', '500', '429'] as const)
    it(`generate, ${kind}: the idempotency-key advice first, never "try again" (people and --json)`, async () => {
      await project.mock.config({ faults: { rate: 1, kinds: [kind] } });
      const people = await project.run(['generate', 'x', '--agent', 'sprite-artist', '-o', 'out/']);
      const machine = await project.run(['generate', 'x', '--agent', 'sprite-artist', '-o', 'out/', '--json']);
      await project.mock.config({ faults: { rate: 0, kinds: ['truncate'] } });
      expect(people.code).toBe(1);
      const lines = people.stderr.split('\n');
      const afterError = lines[lines.findIndex((line) => line.startsWith('error: ')) + 1];
      expect(afterError).toMatch(/^The service may have done this \(and charged for it\).*--idempotency-key /);
      expect(people.stderr).not.toMatch(/try again/i);
      const error = JSON.parse(machine.stderr.trim().split('\n').at(-1)!).error as { hint: string; idempotencyKey: string };
      expect(error.hint.split('\n')[0]).toContain(`--idempotency-key ${error.idempotencyKey}`);
      expect(error.hint).not.toMatch(/try again/i);
    });
});

describe('a stream cut short after the service charged for it', () => {
  it('generate --stream interrupted mid-stream: --json says what was charged (the ledger’s figure)', async () => {
    await project.mock.config({ streamStepMs: 1_000 });
    const env = { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_SESSION: project.mock.sessionCookie };
    const interrupt = new AbortController();
    const running = project.run(['generate', 'moss', '--agent', 'tile-smith', '--stream', '-o', 'out/', '--json'], {
      env,
      interrupt: interrupt.signal,
    });
    // Bounded: 100 tries, 10 s.
    for (let i = 0; i < 100 && !(await project.ledger()).some((entry) => entry.reason.startsWith('stream')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    interrupt.abort();
    const result = await running;
    expect(result.code).toBe(130);
    const charged = -(await project.ledger())
      .filter((entry) => entry.reason.startsWith('stream'))
      .reduce((sum, entry) => sum + entry.amount, 0);
    expect(charged).toBe(10);
    const error = JSON.parse(result.stderr.trim().split('\n').at(-1)!).error as { credits?: { charged: number } };
    expect(error.credits).toMatchObject({ charged });
  });
});

describe('a request no service takes', () => {
  it('a 2 MiB prompt is refused before sending (exit 2, nothing sent, nothing said about a charge), and a job’s submission is not left pending', async () => {
    const before = (await project.mock.state()).requests;
    const prompt = 'a'.repeat(2 * 1024 * 1024);
    const result = await project.run(['generate', prompt, '--agent', 'sprite-artist', '-o', 'out/', '--json']);
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stderr.trim().split('\n').at(-1)!).error as { message: string; hint: string };
    expect(error.message).toContain('nothing was sent');
    expect(error.hint).not.toMatch(/charged/);
    const video = await project.run(['video', 'create', prompt, '--yes', '-o', 'fx/', '--json']);
    expect(video.code).toBe(2);
    expect((await project.mock.state()).requests).toBe(before);
    const jobs = JSON.parse((await project.run(['jobs', '--json'])).stdout) as { jobs: unknown[]; journal: string };
    // Both submissions are settled (refused): nothing to list, nothing left pending.
    expect(jobs.jobs).toEqual([]);
    const journal = fs
      .readFileSync(jobs.journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; state: string });
    expect(journal.filter((line) => line.state === 'refused').map((line) => line.kind)).toEqual(['image', 'video']);
    // The journal keeps a label's start, not the 2 MiB prompt twice per submission.
    expect(fs.statSync(jobs.journal).size).toBeLessThan(8 * 1024);
  });
});
