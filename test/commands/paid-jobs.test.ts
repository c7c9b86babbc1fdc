// Once a call has paid, every way the command ends names the job and the command that resumes it;
// that command, run as printed, finishes the job into the same folder without a second charge.
// And `credits` in --json equals what the ledger says the command cost.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, shellWords, type CliOptions, type CliResult } from '../support/cli.js';
import { PRICES, WORKFLOWS } from '../../src/mock/index.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({
  mock: { credits: 5000 },
  config: { credits: 5000, faults: { rate: 0 }, videoOutcome: 'succeed', videoPollAfterMs: 20, videoSteps: 2 },
});
/** This test's env: the project's, which a test may change (a session instead of a key, say). */
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  env = project.env();
});

const cli = (args: string[], options: Pick<CliOptions, 'interrupt' | 'onStderr' | 'timeoutWhen'> = {}) =>
  project.run(args, { env, ...options });
const ledger = () => project.ledger();
const balance = async () => (await project.mock.state()).credits as number;

/** Runs a printed resume command (minus the leading `assetgen`) in-process. */
async function runPrinted(command: string): Promise<CliResult> {
  const words = shellWords(command);
  expect(words[0]).toBe('assetgen');
  return cli(words.slice(1));
}

const resumeLine = (stderr: string): string => {
  const match = /resume with: (assetgen .+)$/m.exec(stderr);
  if (!match) throw new Error(`no resume command in:\n${stderr}`);
  return match[1]!;
};

describe('a paid video job is never orphaned', () => {
  it('402 on the first poll: exit 5, the job and its resume command (with -o); resuming finishes into that folder, charged once', async () => {
    await project.mock.config({ credits: 180 });
    const result = await cli(['video', 'create', 'torch', '--yes', '-o', 'assets/fx/', '--json']);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    const error = jsonError(result);
    expect(error.job).toMatchObject({ kind: 'video', id: expect.stringMatching(/^vid_/) });
    expect(error.job.resume).toBe(`assetgen video wait ${error.job.id} -o assets/fx/`);
    expect(error.credits).toMatchObject({ charged: 180 });

    await project.mock.config({ credits: 100 });
    const resumed = await runPrinted(error.job.resume);
    expect(resumed.code).toBe(0);
    const saved = resumed.stdout.trim();
    expect(path.dirname(saved)).toBe(path.join(project.home.cwd, 'assets', 'fx'));
    expect(fs.statSync(saved).size).toBeGreaterThan(0);
    expect((await ledger()).filter((entry) => entry.amount === -180)).toHaveLength(1);
  });

  it('poll errors after the retries: exit 1 with status, request id, the job and how to resume, never "try again"', async () => {
    const submitted = await cli(['video', 'create', 'torch', '--yes', '--no-wait', '-o', 'clips/', '--json']);
    expect(submitted.code).toBe(0);
    const job = parseJson(submitted).job as { id: string; resume: string };
    expect(job.resume).toBe(`assetgen video wait ${job.id} -o clips/`);

    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const human = await cli(['video', 'wait', job.id, '-o', 'clips/']);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/HTTP 500, request id req_/);
    expect(resumeLine(human.stderr)).toBe(job.resume);
    expect(human.stderr).toContain('is paid for and kept');
    expect(human.stderr).not.toMatch(/try again/i);

    const json = await cli(['video', 'wait', job.id, '-o', 'clips/', '--json']);
    const error = jsonError(json);
    expect(error).toMatchObject({
      status: 500,
      requestId: expect.stringMatching(/^req_/),
      job: { id: job.id, kind: 'video', resume: job.resume },
    });

    await project.mock.config({ faults: { rate: 0 } });
    const resumed = await runPrinted(job.resume);
    expect(resumed.code).toBe(0);
    expect(path.dirname(resumed.stdout.trim())).toBe(path.join(project.home.cwd, 'clips'));
    expect((await ledger()).filter((entry) => entry.amount === -180)).toHaveLength(1);
  });

  it('Ctrl-C during the wait: exit 130, the job goes on, and the printed command resumes it into the same file', async () => {
    await project.mock.config({ videoSteps: 3 });
    const controller = new AbortController();
    // Ctrl-C the moment the job is paid for, before its first poll.
    const interrupted = await cli(['video', 'create', 'slow dragon', '--yes', '-o', 'fx/dragon.gif', '--interval', '20ms'], {
      interrupt: controller.signal,
      onStderr: (text) => {
        if (text.includes('Submitted video job')) controller.abort();
      },
    });
    expect(interrupted.code).toBe(130);
    const resume = resumeLine(interrupted.stderr);
    expect(resume).toMatch(/^assetgen video wait vid_\w+ -o fx\/dragon\.gif --interval 20ms$/);
    expect(interrupted.stderr).toContain('goes on without us');

    const resumed = await runPrinted(resume);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout.trim()).toBe(path.join(project.home.cwd, 'fx', 'dragon.gif'));
    expect((await ledger()).filter((entry) => entry.amount === -180)).toHaveLength(1);
  });

  it('`jobs` shows the very command the waiting command printed, --base-url included', async () => {
    const submitted = await cli([
      'video',
      'create',
      'torch',
      '--yes',
      '--no-wait',
      '-o',
      'clips/',
      '--base-url',
      project.mock.url,
      '--json',
    ]);
    const printed = (parseJson(submitted).job as { resume: string }).resume;
    expect(printed).toContain(`--base-url ${project.mock.url}/`);
    const jobs = parseJson(await cli(['jobs', '--json'])).jobs as { id: string; resume: string | null }[];
    expect(jobs[0]!.resume).toBe(printed);
    const human = await cli(['jobs']);
    expect(human.stderr).toContain(printed);
  });

  it('`jobs -n 1` after images: the unfinished video job, not the settled submissions made after it', async () => {
    const submitted = parseJson(await cli(['video', 'create', 'lantern', '--yes', '--no-wait', '-o', 'clips/', '--json']));
    for (const prompt of ['a key', 'a coin'])
      expect((await cli(['generate', prompt, '--agent', 'sprite-artist', '-o', 'items/'])).code).toBe(0);
    const jobs = parseJson(await cli(['jobs', '-n', '1', '--json'])).jobs as { id: string; kind: string; resume: string | null }[];
    expect(jobs).toEqual([
      expect.objectContaining({ id: (submitted.job as { id: string }).id, kind: 'video', resume: expect.any(String) }),
    ]);
  });

  it('a failed job reports its refund, names the job and has nothing to resume', async () => {
    await project.mock.config({ videoOutcome: 'fail' });
    const before = await balance();
    const result = await cli(['video', 'create', 'doomed', '--yes', '--json', '--interval', '20ms']);
    expect(result.code).toBe(6);
    const error = jsonError(result);
    expect(error.job).toEqual({ id: error.jobId, kind: 'video', resume: null });
    expect(error.refunded).toBe(true);
    expect(error.credits.refunded).toBe(180);
    const after = await balance();
    expect(before - after).toBe(error.credits.charged - error.credits.refunded);
  });
});

describe('a paid run is never orphaned', () => {
  it('poll errors: the run id and `runs wait` resume; resuming finishes with one charge for the run', async () => {
    const started = await cli(['workflows', 'run', 'wf_tileset', '--no-wait', '-o', 'tiles', '--json']);
    const job = parseJson(started).job as { id: string; resume: string };
    expect(job.resume).toBe(`assetgen runs wait ${job.id} -o tiles`);
    await project.mock.config({ faults: { rate: 1, kinds: ['503'] } });
    const failed = await cli(['runs', 'wait', job.id, '-o', 'tiles', '--json']);
    expect(failed.code).toBe(1);
    expect(jsonError(failed)).toMatchObject({ status: 503, job: { id: job.id, kind: 'run', resume: job.resume } });
    await project.mock.config({ faults: { rate: 0 } });
    const resumed = await runPrinted(job.resume);
    expect(resumed.code).toBe(0);
    for (const file of resumed.stdout.trim().split('\n')) expect(path.dirname(file)).toBe(path.join(project.home.cwd, 'tiles'));
    expect((await ledger()).filter((entry) => entry.reason.startsWith('run '))).toHaveLength(1);
  });

  it('-o naming an existing file is refused before paying', async () => {
    fs.writeFileSync(path.join(project.home.cwd, 'taken.png'), 'x');
    const result = await cli(['workflows', 'run', 'wf_tileset', '-o', 'taken.png']);
    expect(result.code).toBe(2);
    expect(await ledger()).toEqual([]);
  });
});

describe('a paid call that fails after its retries', () => {
  it('shows its status and request id, and the idempotency key that recovers it (human and --json)', async () => {
    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const human = await cli(['generate', 'crate', '--agent', 'sprite-artist']);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/HTTP 500, request id req_\w+/);
    expect(human.stderr).toMatch(/--idempotency-key [0-9a-f-]{36}/);
    const json = await cli(['generate', 'crate', '--agent', 'sprite-artist', '--json']);
    expect(json.code).toBe(1);
    expect(jsonError(json)).toMatchObject({
      code: 'internal_error',
      status: 500,
      requestId: expect.stringMatching(/^req_/),
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
      exitCode: 1,
    });
  });
});

describe('credits in --json of the one-poll commands equal the ledger difference', () => {
  it('runs get and video get', async () => {
    const started = parseJson(await cli(['workflows', 'run', 'wf_sprite_sheet', '--no-wait', '--json']));
    const job = parseJson(await cli(['video', 'create', 'torch', '--yes', '--no-wait', '--json']));
    for (const args of [
      ['runs', 'get', started.id as string, '--json'],
      ['video', 'get', job.id as string, '--json'],
    ]) {
      const before = await balance();
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(0);
      const after = await balance();
      expect(parseJson(result).credits, args.join(' ')).toMatchObject({ charged: before - after, balance: after });
      expect(before - after).toBe(1); // a key-authenticated poll costs the mock's 1 credit
    }
  });
});

describe('with a session configured as well as a key', () => {
  it('polls go with the session and cost nothing; submissions still use the key', async () => {
    env = { ...env, ASSETGEN_SESSION: project.mock.sessionCookie };
    const video = await cli(['video', 'create', 'torch', '--yes', '--json', '--interval', '20ms']);
    expect(video.code, video.stderr).toBe(0);
    expect(parseJson(video).credits).toMatchObject({ charged: 180, refunded: 0 });
    const run = await cli(['workflows', 'run', 'wf_sprite_sheet', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const reasons = (await ledger()).map((entry) => entry.reason);
    expect(reasons.filter((reason) => reason.startsWith('poll'))).toEqual([]);
    expect(reasons.filter((reason) => /^(video|run) /.test(reason))).toHaveLength(2);
    expect(parseJson(run).credits.charged).toBe(-(await ledger()).at(-1)!.amount);
  });
});

describe('credits in --json equal the ledger difference', () => {
  const cases: [string, string[]][] = [
    ['generate', ['generate', 'crate', '--agent', 'sprite-artist', '--json']],
    ['video create (submission + polls)', ['video', 'create', 'torch', '--yes', '--json', '--interval', '20ms']],
    ['workflows run (run + one poll per node)', ['workflows', 'run', 'wf_sprite_sheet', '--json']],
    ['workflows list (a key-authenticated list)', ['workflows', 'list', '--json']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const before = await balance();
      const result = await cli(args);
      expect(result.code).toBe(0);
      const credits = parseJson(result).credits as { charged: number; refunded: number; balance: number };
      const after = await balance();
      expect(credits.charged - credits.refunded).toBe(before - after);
      expect(credits.balance).toBe(after);
    });
  }
});

describe('credits in --json equal the ledger difference: commands that follow an earlier step, the session ones, a refund', () => {
  const expectCredits = async (args: string[], code = 0) => {
    const before = await balance();
    const result = await cli(args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(code);
    const credits = (code === 0 ? parseJson(result).credits : jsonError(result).credits) as {
      charged: number;
      refunded: number;
      balance: number;
    };
    const after = await balance();
    expect(credits.charged - credits.refunded, args.join(' ')).toBe(before - after);
    expect(credits.balance, args.join(' ')).toBe(after);
    return credits;
  };

  it('runs wait and video wait', async () => {
    const run = parseJson(await cli(['workflows', 'run', 'wf_sprite_sheet', '--no-wait', '--json']));
    const job = parseJson(await cli(['video', 'create', 'torch', '--yes', '--no-wait', '--json']));
    expect((await expectCredits(['runs', 'wait', run.id as string, '--json'])).charged).toBeGreaterThan(0);
    expect((await expectCredits(['video', 'wait', job.id as string, '--interval', '20ms', '--json'])).charged).toBeGreaterThan(0);
  });

  it('agents, generate with a session and generate --stream (session calls)', async () => {
    env = { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_SESSION: project.mock.sessionCookie };
    await expectCredits(['agents', '--json']);
    expect((await expectCredits(['generate', 'crate', '--agent', 'sprite-artist', '--json'])).charged).toBe(PRICES.generation);
    expect((await expectCredits(['generate', 'crate', '--agent', 'sprite-artist', '--stream', '--json'])).charged).toBe(PRICES.generation);
  });

  it('a failed video: charged, refunded, and the balance back (exit 6)', async () => {
    await project.mock.config({ videoOutcome: 'fail' });
    const credits = await expectCredits(['video', 'create', 'torch', '--yes', '--interval', '20ms', '--json'], 6);
    expect(credits.refunded).toBe(PRICES.video);
  });
});

// Every paid command × every way its wait can end after paying: the job id and the exact command
// that resumes it into the same folder, and that command, run as printed, finishes with no second
// charge for the submission.
describe('each paid command × each way of ending after paying', () => {
  const commands = [
    { name: 'video create', args: ['video', 'create', 'torch', '--yes', '-o', 'fx/', '--interval', '20ms'], charge: /^video /, dir: 'fx' },
    { name: 'workflows run', args: ['workflows', 'run', 'wf_tileset', '-o', 'tiles/'], charge: /^run /, dir: 'tiles' },
  ];
  const endings: {
    name: string;
    code: number;
    setup: (
      command: (typeof commands)[number],
    ) => Promise<{ extra?: string[]; onPaid?: (controller: AbortController) => Promise<void>; timeoutOnHeldPoll?: boolean }>;
  }[] = [
    { name: 'Ctrl-C', code: 130, setup: async () => ({ onPaid: async (controller) => controller.abort() }) },
    {
      name: '--timeout',
      code: 7,
      setup: async () => {
        // The mock holds every poll (the submission goes through), and the timeout runs out once
        // one is held: it always falls in the wait, however slow this machine is.
        await project.mock.hold(['getRun', 'getVideo']);
        return { extra: ['--timeout', '1500ms'], timeoutOnHeldPoll: true };
      },
    },
    {
      name: 'a save error (the output folder replaced by a file)',
      code: 1,
      setup: async (command) => ({
        onPaid: async () => {
          fs.writeFileSync(path.join(project.home.cwd, command.dir), 'in the way');
        },
      }),
    },
    {
      name: '402 on the first poll',
      code: 5,
      setup: async (command) => {
        // Exactly what the submission costs: the first (key-authenticated, 1-credit) poll gets 402.
        const nodes = WORKFLOWS.find((workflow) => workflow.id === 'wf_tileset')!.nodes.length;
        await project.mock.config({ credits: command.name === 'video create' ? PRICES.video : PRICES.runPerNode * nodes });
        return {};
      },
    },
  ];
  for (const command of commands) {
    for (const ending of endings) {
      it(`${command.name}: ${ending.name}`, async () => {
        const { extra = [], onPaid, timeoutOnHeldPoll } = await ending.setup(command);
        const controller = new AbortController();
        const runOut = new AbortController();
        let paid = false;
        const running = cli([...command.args, ...extra, '--json'], {
          interrupt: controller.signal,
          timeoutWhen: timeoutOnHeldPoll ? runOut.signal : undefined,
          onStderr: (text) => {
            if (!paid && /Submitted video job|Started run/.test(text)) {
              paid = true;
              void onPaid?.(controller);
            }
          },
        });
        if (timeoutOnHeldPoll) {
          await until('a poll held', async () => ((await project.mock.state()).held as number) >= 1);
          runOut.abort();
        }
        const result = await running;
        expect(result.code, result.stderr).toBe(ending.code);
        const error = jsonError(result);
        expect(error.job, result.stderr).toMatchObject({ id: expect.any(String), resume: expect.stringContaining(error.job.id) });
        expect(error.job.resume).toContain(`-o ${command.dir}/`);

        fs.rmSync(path.join(project.home.cwd, command.dir), { recursive: true, force: true });
        await project.mock.config({ credits: 5000, hold: [] });
        const resumed = await runPrinted(error.job.resume);
        expect(resumed.code, resumed.stderr).toBe(0);
        for (const file of resumed.stdout.trim().split('\n')) expect(path.dirname(file)).toBe(path.join(project.home.cwd, command.dir));
        expect((await ledger()).filter((entry) => command.charge.test(entry.reason))).toHaveLength(1);
      });
    }
  }
});
