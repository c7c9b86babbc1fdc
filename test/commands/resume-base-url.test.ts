// `assetgen jobs` resumes each unfinished job on the service the journal recorded for it: when a
// command run now would call another service (--base-url, ASSETGEN_BASE_URL, the stored one), the
// printed command carries `--base-url <recorded URL>` (no user or password); when it would call the
// same one, the command is the one the waiting command printed. A `submitting` entry's command (the
// same request again, same Idempotency-Key) gets the same treatment: sent elsewhere, it would pay twice.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseJson, shellWords, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({
  mock: { credits: 5000 },
  config: { credits: 5000, faults: { rate: 0 }, videoOutcome: 'succeed', videoPollAfterMs: 20, videoSteps: 2 },
});

/** A service nothing listens on: a resume sent there fails. */
const ELSEWHERE = 'http://127.0.0.1:1/';
let env: NodeJS.ProcessEnv;
let elsewhere: NodeJS.ProcessEnv;
beforeEach(() => {
  env = project.env();
  elsewhere = { ...env, ASSETGEN_BASE_URL: ELSEWHERE };
});

type Job = { id: string; kind: string; state: string; resume: string | null };
const cli = (args: string[], options: { env?: NodeJS.ProcessEnv; interrupt?: AbortSignal; input?: string } = {}) =>
  project.run(args, { env: options.env ?? env, interrupt: options.interrupt, input: options.input });
const listed = async (options: { env?: NodeJS.ProcessEnv; args?: string[] } = {}): Promise<Job[]> => {
  const result = await cli(['jobs', '--json', ...(options.args ?? [])], options);
  expect(result.code, result.stderr).toBe(0);
  return parseJson(result).jobs as Job[];
};
const resumeOf = (jobs: Job[], id: string): string | null | undefined => jobs.find((job) => job.id === id)?.resume;
/** Runs a printed command (minus the leading `assetgen`) in-process, with `runEnv`. */
function runPrinted(command: string, runEnv: NodeJS.ProcessEnv): Promise<CliResult> {
  const words = shellWords(command);
  expect(words[0]).toBe('assetgen');
  return cli(words.slice(1), { env: runEnv });
}
const videoCharges = async () => (await project.ledger()).filter((entry) => entry.amount === -180);
const recorded = () => `${project.mock.url}/`;

describe('`assetgen jobs` resumes on the service the job is on', () => {
  it('another service configured now (environment or --base-url): the command names the recorded one, and works as printed', async () => {
    const video = parseJson(await cli(['video', 'create', 'torch', '--yes', '--no-wait', '-o', 'clips/', '--json'])).job as Job;
    const run = parseJson(await cli(['workflows', 'run', 'wf_tileset', '--no-wait', '-o', 'tiles', '--json'])).job as Job;
    expect(video.resume).toBe(`assetgen video wait ${video.id} -o clips/`);

    // The same service (its URL written without the slash the journal records): the very command printed.
    const same = await listed();
    expect(resumeOf(same, video.id)).toBe(video.resume);
    expect(resumeOf(same, run.id)).toBe(run.resume);

    for (const other of [{ env: elsewhere }, { args: ['--base-url', ELSEWHERE] }]) {
      const jobs = await listed(other);
      expect(resumeOf(jobs, video.id)).toBe(`${video.resume} --base-url ${recorded()}`);
      expect(resumeOf(jobs, run.id)).toBe(`${run.resume} --base-url ${recorded()}`);
    }
    const human = await cli(['jobs'], { env: elsewhere });
    expect(human.stderr).toContain(`  ${video.resume} --base-url ${recorded()}`);

    // Run as printed, under the configuration that would have polled the wrong service.
    const resumed = await runPrinted(resumeOf(await listed({ env: elsewhere }), video.id)!, elsewhere);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(path.dirname(resumed.stdout.trim())).toBe(path.join(project.cwd, 'clips'));
    expect(await videoCharges()).toHaveLength(1);
  });

  it('the stored base URL is the recorded one: no --base-url; no service configured at all: it is named', async () => {
    const keyOnly = { ...env, ASSETGEN_BASE_URL: undefined };
    const login = await cli(['auth', 'login', '--with-key', '--base-url', project.mock.url, '-q'], {
      env: keyOnly,
      input: project.mock.apiKey,
    });
    expect(login.code, login.stderr).toBe(0);
    const video = parseJson(await cli(['video', 'create', 'torch', '--yes', '--no-wait', '--json'], { env: keyOnly })).job as Job;
    expect(resumeOf(await listed({ env: keyOnly }), video.id)).toBe(video.resume);

    fs.rmSync(project.home.env.ASSETGEN_CONFIG_DIR!, { recursive: true, force: true });
    expect(resumeOf(await listed({ env: project.home.env }), video.id)).toBe(`${video.resume} --base-url ${recorded()}`);
  });

  it('a `submitting` entry: the same request again names the recorded service, and gets the job it paid for', async () => {
    await project.mock.hold(['createVideo']);
    const controller = new AbortController();
    const interrupted = cli(['video', 'create', 'lost lava', '--yes', '-o', 'clips/'], { interrupt: controller.signal });
    await until('the submission held', async () => (await project.mock.state()).held >= 1);
    controller.abort();
    expect((await interrupted).code).toBe(130);
    await project.mock.hold([]);
    await until('the video charged', async () => (await videoCharges()).length === 1);

    const pending = (await listed({ env: elsewhere })).find((job) => job.state === 'submitting');
    expect(pending?.resume).toMatch(/^assetgen video create 'lost lava' --yes -o \S+ --idempotency-key \S+ --base-url \S+$/);
    expect(pending!.resume!.endsWith(` --base-url ${recorded()}`)).toBe(true);
    expect((await listed()).find((job) => job.id === pending!.id)?.resume).toBe(pending!.resume!.replace(/ --base-url \S+$/, ''));

    const resumed = await runPrinted(pending!.resume!, elsewhere);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(path.dirname(resumed.stdout.trim())).toBe(path.join(project.cwd, 'clips'));
    expect(await videoCharges()).toHaveLength(1);
  });

  it("a recorded URL's user and password are never printed", async () => {
    const journal = path.join(project.home.env.ASSETGEN_STATE_DIR!, 'jobs.jsonl');
    fs.mkdirSync(path.dirname(journal), { recursive: true });
    const at = new Date().toISOString();
    const lines = [
      {
        kind: 'video',
        id: 'vid_hand',
        baseUrl: 'http://ann:hunter2@127.0.0.1:9/api',
        state: 'running',
        label: 'a torch',
        createdAt: at,
        updatedAt: at,
      },
      {
        kind: 'run',
        id: 'submit-0123456789abcdef',
        baseUrl: 'http://ann:hunter2@127.0.0.1:9/api',
        state: 'submitting',
        label: 'wf_tileset',
        resubmit: ['workflows', 'run', 'wf_tileset', '-o', project.cwd, '--idempotency-key', 'k1'],
        createdAt: at,
        updatedAt: at,
      },
    ];
    fs.writeFileSync(journal, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));

    const jobs = await listed();
    expect(resumeOf(jobs, 'vid_hand')).toBe('assetgen video wait vid_hand --base-url http://127.0.0.1:9/api');
    expect(resumeOf(jobs, 'submit-0123456789abcdef')).toBe(
      `assetgen workflows run wf_tileset -o ${project.cwd} --idempotency-key k1 --base-url http://127.0.0.1:9/api`,
    );
    const human = await cli(['jobs']);
    expect(human.stdout + human.stderr).not.toContain('hunter2');
    // The same service, whatever user it was reached as: nothing added.
    const same = await listed({ env: { ...env, ASSETGEN_BASE_URL: 'http://127.0.0.1:9/api/' } });
    expect(resumeOf(same, 'vid_hand')).toBe('assetgen video wait vid_hand');
  });
});
