// Every command in-process (the real command table, in-memory streams, no TTY) against the real
// mock over loopback, human and --json. test/e2e keeps what needs a real process.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson } from '../support/cli.js';
import { startMock } from '../support/mock.js';
import { useMockProject } from '../support/project.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const project = useMockProject({
  mock: { credits: 5000 },
  config: { credits: 5000, faults: { rate: 0 }, videoOutcome: 'succeed', videoPollAfterMs: 20 },
});
let keyEnv: NodeJS.ProcessEnv;
let sessionEnv: NodeJS.ProcessEnv;
beforeEach(() => {
  keyEnv = project.env();
  sessionEnv = { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_SESSION: project.mock.sessionCookie };
});

const cli = (args: string[], env: NodeJS.ProcessEnv = keyEnv, input?: string) => project.run(args, { env, input });
const charges = async (amount: number) => (await project.ledger()).filter((entry) => entry.amount === amount).length;

describe('auth', () => {
  it('stores a key from stdin at 0600 in a 0700 directory, shows it masked, and logs out', async () => {
    const env = { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url };
    const login = await cli(['auth', 'login', '--with-key'], env, `${project.mock.apiKey}\n`);
    expect(login.code).toBe(0);
    const file = path.join(project.home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(login.stderr).not.toContain(project.mock.apiKey);

    const status = await cli(['auth', 'status', '--json'], env);
    expect(status.code).toBe(0);
    const document = parseJson(status) as { authenticated: boolean; apiKey: { value: string; source: string; location: string } };
    expect(document.authenticated).toBe(true);
    expect((document as unknown as { ready: boolean }).ready).toBe(true);
    expect(document.apiKey.source).toBe('file');
    expect(document.apiKey.location).toBe(file);
    expect(document.apiKey.value).not.toBe(project.mock.apiKey);
    expect(document.apiKey.value.endsWith(project.mock.apiKey.slice(-4))).toBe(true);

    const human = await cli(['auth', 'status'], env);
    expect(human.stdout).toContain(file);
    expect(human.stdout).not.toContain(project.mock.apiKey);

    // The stored key works.
    expect((await cli(['workflows', 'list'], env)).code).toBe(0);

    expect((await cli(['auth', 'logout'], env)).code).toBe(0);
    const after = await cli(['auth', 'status', '--json'], env);
    expect(after.code).toBe(4);
    expect(parseJson(after)).toMatchObject({ authenticated: false, ready: false });

    // A key but no service URL: not ready, and the exit code says the same.
    const noUrl = await cli(['auth', 'status', '--json'], { ...project.home.env, ASSETGEN_API_KEY: project.mock.apiKey });
    expect(noUrl.code).toBe(4);
    expect(parseJson(noUrl)).toMatchObject({ authenticated: true, ready: false });
    const human2 = await cli(['auth', 'status'], env);
    expect(human2.stdout).toMatch(/Ready: +no/);
  });

  it('reports the environment as the source when ASSETGEN_API_KEY is set', async () => {
    const status = await cli(['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('env ASSETGEN_API_KEY');
  });

  it('login checks the key with the cheapest call, says what it cost, and stores it', async () => {
    const before = (await project.mock.state()).credits as number;
    const login = await cli(
      ['auth', 'login', '--with-key', '--base-url', project.mock.url, '--json'],
      project.home.env,
      project.mock.apiKey,
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(
      /accepted the API key \(GET \/api\/v1\/workflows: \d+ workflows?\)\.\n(.*\n)*Charged 1 credit; \d+ remaining\./,
    );
    expect(parseJson(login)).toMatchObject({ stored: 'apiKey', verified: true, credits: { charged: 1, balance: before - 1 } });
    expect((await project.mock.state()).credits).toBe(before - 1);
    expect((await cli(['auth', 'status'], project.home.env)).code).toBe(0);
  });

  it('login checks a session cookie for free', async () => {
    const before = (await project.mock.state()).credits as number;
    const login = await cli(['auth', 'login', '--session', '--base-url', project.mock.url], project.home.env, project.mock.sessionCookie);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/accepted the session cookie \(GET \/api\/v1\/workflows: \d+ workflows?\)\.\n/);
    expect(login.stderr).not.toContain('Charged');
    expect((await project.mock.state()).credits).toBe(before);
  });

  it('login stores nothing when the service rejects the key (exit 4) or cannot be reached (exit 1)', async () => {
    const file = path.join(project.home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json');
    const rejected = await cli(
      ['auth', 'login', '--with-key', '--base-url', project.mock.url, '--json'],
      project.home.env,
      `agk_${'0'.repeat(40)}`,
    );
    expect(rejected.code).toBe(4);
    expect(jsonError(rejected).message).toMatch(/rejected this API key \(HTTP 401\)/);
    expect(jsonError(rejected).hint).toContain('Nothing was stored');
    expect(fs.existsSync(file)).toBe(false);
    const closed = await startMock({});
    const url = closed.url;
    await closed.close();
    const unreachable = await cli(['auth', 'login', '--with-key', '--base-url', url], project.home.env, project.mock.apiKey);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('--no-verify');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('login --no-verify stores without a call (offline setup), base URL or not', async () => {
    const requests = (await project.mock.state()).requests as number;
    const login = await cli(['auth', 'login', '--with-key', '--no-verify', '--json'], project.home.env, project.mock.apiKey);
    expect(login.code, login.stderr).toBe(0);
    expect(parseJson(login)).toMatchObject({ stored: 'apiKey', verified: false });
    expect((await project.mock.state()).requests).toBe(requests + 0);
    const noUrl = await cli(['auth', 'login', '--with-key'], project.home.env, project.mock.apiKey);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--base-url|--no-verify/);
  });

  it('refuses to prompt without a terminal and never takes a key as an argument', async () => {
    const login = await cli(['auth', 'login', '--base-url', project.mock.url], project.home.env);
    expect(login.code).toBe(2);
    expect(login.stderr).toContain('--with-key');
    expect((await cli(['auth', 'login', project.mock.apiKey], project.home.env)).code).toBe(2);
  });

  it('exits 4 with advice when no credentials are configured', async () => {
    const result = await cli(['workflows', 'list'], { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('assetgen auth login');
    const json = await cli(['workflows', 'list', '--json'], { ...project.home.env, ASSETGEN_BASE_URL: project.mock.url });
    expect(json.code).toBe(4);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { exitCode: 4 } });
  });

  it('exits 4 when the service rejects the key', async () => {
    const result = await cli(['workflows', 'list'], { ...keyEnv, ASSETGEN_API_KEY: 'agk_not_a_real_key_000000000000' });
    expect(result.code).toBe(4);
  });

  it('refuses to send the key over plain http to a non-loopback host', async () => {
    const result = await cli(['workflows', 'list', '--base-url', 'http://assets.example.com']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--allow-insecure-http');
  });
});

describe('generate', () => {
  it('saves a PNG, prints its path and reports credits', async () => {
    const result = await cli(['generate', 'rusty sword icon', '--agent', 'sprite-artist']);
    expect(result.code).toBe(0);
    const saved = result.stdout.trim();
    expect(path.dirname(saved)).toBe(project.home.cwd);
    expect(fs.readFileSync(saved).subarray(0, 8)).toEqual(PNG_MAGIC);
    expect(result.stderr).toMatch(/Charged 10 credits; \d+ remaining/);
  });

  it('prints one JSON document with the saved path and credits', async () => {
    const result = await cli(['generate', 'rusty sword icon', '--agent', 'sprite-artist', '-o', 'assets/', '--json']);
    expect(result.code).toBe(0);
    const document = parseJson(result) as { saved: string[]; credits: { charged: number; refunded: number; balance: number }; id: string };
    expect(document.saved).toHaveLength(1);
    expect(document.saved[0]).toBe(path.join(project.home.cwd, 'assets', `${document.id}.png`));
    expect(document.credits.charged).toBe(10);
    expect(document.credits).toEqual({ charged: 10, refunded: 0, balance: 4990 });
  });

  it('writes the bytes to stdout with -o - and refuses to overwrite without --force', async () => {
    const piped = await cli(['generate', 'moss tile', '--agent', 'tile-smith', '-o', '-']);
    expect(piped.code).toBe(0);
    expect(piped.stdoutBytes.subarray(0, 8)).toEqual(PNG_MAGIC);
    expect((await cli(['generate', 'moss tile', '--agent', 'tile-smith', '-o', '-', '--json'])).code).toBe(2);

    const first = await cli(['generate', 'moss tile', '--agent', 'tile-smith', '-o', 'tile.png']);
    expect(first.code).toBe(0);
    const again = await cli(['generate', 'moss tile', '--agent', 'tile-smith', '-o', 'tile.png']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
    const forced = await cli(['generate', 'moss tile', '--agent', 'tile-smith', '-o', 'tile.png', '--force']);
    expect(forced.code).toBe(0);
    // The refused call was stopped before the paid request: three generations, three charges.
    expect(await charges(-10)).toBe(3);
  });

  it('uses the session endpoint when only a session is configured', async () => {
    const result = await cli(['generate', 'gold coin', '--agent', 'icon-forge', '--json'], sessionEnv);
    expect(result.code).toBe(0);
    expect(fs.existsSync((parseJson(result) as { saved: string[] }).saved[0]!)).toBe(true);
  });

  it('streams progress events live with --stream', async () => {
    const result = await cli(['generate', 'lava tile', '--agent', 'tile-smith', '--stream'], sessionEnv);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((line) => /%/.test(line)).length).toBeGreaterThanOrEqual(2);
    expect(fs.readFileSync(result.stdout.trim()).subarray(0, 8)).toEqual(PNG_MAGIC);
  });

  it('explains an unknown agent and an empty balance', async () => {
    const unknown = await cli(['generate', 'x', '--agent', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/agent/i);
    expect(unknown.stderr).toMatch(/HTTP 404, request id req_/);

    await project.mock.config({ credits: 3 });
    const broke = await cli(['generate', 'x', '--agent', 'sprite-artist', '--json']);
    expect(broke.code).toBe(5);
    expect(JSON.parse(broke.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { required: 10, balance: 3, exitCode: 5 } });
  });
});

describe('agents and workflows', () => {
  it('lists agents with a session, and explains how to get one without', async () => {
    // Nothing listed before on this machine: a key alone cannot list them (test/commands/agents.test.ts).
    const noSession = await cli(['agents']);
    expect(noSession.code).toBe(4);
    expect(noSession.stderr).toContain('session');
    const human = await cli(['agents'], sessionEnv);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('sprite-artist');
    const json = parseJson(await cli(['agents', '--json'], sessionEnv)) as { agents: { id: string }[] };
    expect(json.agents.map((agent) => agent.id)).toContain('motion-director');
  });

  it('lists workflows with node counts and overridable nodes', async () => {
    const human = await cli(['workflows', 'list']);
    expect(human.code).toBe(0);
    const row = human.stdout.split('\n').find((line) => line.startsWith('wf_tileset'));
    expect(row?.split('\t')[2]).toBe('4');
    const json = parseJson(await cli(['workflows', 'list', '--json'])) as { workflows: { id: string; nodes: unknown[] }[] };
    expect(json.workflows.length).toBeGreaterThanOrEqual(3);
  });

  it('runs a workflow of N nodes with exactly N polls and saves the outputs', async () => {
    const before = (await project.mock.state()).credits;
    const result = await cli(['workflows', 'run', 'wf_tileset', '--set', 'theme=frozen cavern', '-o', 'tiles', '--json']);
    expect(result.code).toBe(0);
    const document = parseJson(result) as { status: string; totalNodes: number; saved: string[] };
    expect(document.status).toBe('succeeded');
    expect(document.saved.length).toBeGreaterThan(0);
    for (const file of document.saved) expect(fs.readFileSync(file).subarray(0, 8)).toEqual(PNG_MAGIC);
    // 5 credits per node to start, then 1 credit per key-authenticated poll: N polls exactly.
    const after = (await project.mock.state()).credits;
    expect(before - after).toBe(5 * 4 + 4);
    expect(result.stderr).not.toContain('node 5/4');
  });

  it('shows node k/N progress lines in human mode', async () => {
    const result = await cli(['workflows', 'run', 'wf_sprite_sheet']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/node 1\/3/);
    expect(result.stderr).toMatch(/node 2\/3/);
    expect(result.stdout.trim().split('\n').length).toBeGreaterThan(0);
  });

  it('rejects an override of a node that is not overridable, and a malformed --set', async () => {
    const bad = await cli(['workflows', 'run', 'wf_tileset', '--set', 'nope=x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('nope');
    expect((await cli(['workflows', 'run', 'wf_tileset', '--set', 'justtext'])).code).toBe(2);
  });

  it('starts with --no-wait, then runs get advances one node and runs wait finishes', async () => {
    const started = await cli(['workflows', 'run', 'wf_sprite_sheet', '--no-wait']);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    expect(runId).toMatch(/^run_/);
    expect(started.stderr).toContain(`assetgen runs wait ${runId}`);

    const polled = parseJson(await cli(['runs', 'get', runId, '--json'])) as { completedNodes: number };
    expect(polled.completedNodes).toBe(1);
    const waited = await cli(['runs', 'wait', runId, '--json']);
    expect(waited.code).toBe(0);
    expect((parseJson(waited) as { completedNodes: number; status: string }).status).toBe('succeeded');

    const jobs = parseJson(await cli(['jobs', '--json'])) as { jobs: { id: string; kind: string; state: string }[] };
    expect(jobs.jobs.find((job) => job.id === runId)).toMatchObject({ kind: 'run', state: 'succeeded' });
  });
});

describe('video', () => {
  it('requires --yes without a terminal and charges nothing', async () => {
    const result = await cli(['video', 'create', 'torch flicker']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--yes');
    expect(await charges(-180)).toBe(0);
  });

  it('creates, waits and saves a video, charged 180 exactly once', async () => {
    const result = await cli(['video', 'create', 'torch flicker', '--yes', '--json', '--interval', '20ms']);
    expect(result.code).toBe(0);
    const document = parseJson(result) as { status: string; saved: string[]; id: string };
    expect(document.status).toBe('succeeded');
    expect(fs.statSync(document.saved[0]!).size).toBeGreaterThan(100);
    expect(await charges(-180)).toBe(1);
  });

  it('exits 6 on a failed job and the balance shows the refund', async () => {
    await project.mock.config({ videoOutcome: 'fail' });
    const result = await cli(['video', 'create', 'cursed torch', '--yes', '--interval', '20ms']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/refunded/i);
    const state = await project.mock.state();
    expect(state.ledger.filter((entry) => entry.amount === -180)).toHaveLength(1);
    expect(state.ledger.filter((entry) => entry.amount === 180)).toHaveLength(1);
    const jobs = parseJson(await cli(['jobs', '--json'])) as { jobs: { kind: string; state: string; refunded?: boolean }[] };
    expect(jobs.jobs[0]).toMatchObject({ kind: 'video', state: 'failed', refunded: true });
  });

  it('submits with --no-wait, polls with video get, finishes with video wait', async () => {
    const submitted = await cli(['video', 'create', 'waterfall loop', '--yes', '--no-wait']);
    expect(submitted.code).toBe(0);
    const id = submitted.stdout.trim();
    expect(id).toMatch(/^vid_/);
    const polled = await cli(['video', 'get', id]);
    expect(polled.code).toBe(0);
    expect(polled.stdout).toContain(id);
    const waited = await cli(['video', 'wait', id, '-o', 'clips/', '--interval', '20ms']);
    expect(waited.code).toBe(0);
    expect(path.dirname(waited.stdout.trim())).toBe(path.join(project.home.cwd, 'clips'));
  });

  it('--timeout gives up with exit 7 and the resume command', async () => {
    // The job never ends (1,000 steps of 50 ms): the timeout falls in the polling. It is generous
    // enough that the submission has answered by then even on a loaded machine (400 ms was not).
    await project.mock.config({ videoSteps: 1000 });
    const result = await cli(['video', 'create', 'endless', '--yes', '--interval', '50ms', '--timeout', '1500ms']);
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/assetgen video wait vid_/);
  });
});

describe('resilience', () => {
  it('survives injected 500/429/reset faults without charging twice', async () => {
    await project.mock.config({ faults: { rate: 0.3, kinds: ['500', '429', 'reset'] } });
    let succeeded = 0;
    for (let i = 0; i < 4; i++) {
      const result = await cli(['generate', `crate ${i}`, '--agent', 'sprite-artist', '--json']);
      if (result.code === 0) succeeded += 1;
      else expect(result.code).toBe(1);
    }
    await project.mock.config({ faults: { rate: 0 } });
    expect(succeeded).toBeGreaterThan(0);
    expect(await charges(-10)).toBe(succeeded);
  });

  it('retries a truncated paid response with the same idempotency key: one charge, however often it retries', async () => {
    await project.mock.config({ faults: { rate: 1, kinds: ['truncate'] } });
    const result = await cli(['video', 'create', 'torch', '--yes', '--no-wait']);
    await project.mock.config({ faults: { rate: 0 } });
    expect(result.code).toBe(1);
    const state = await project.mock.state();
    expect(state.requests).toBe(3); // the first attempt and two retries
    expect(await charges(-180)).toBe(1);
    expect(state.videos).toHaveLength(1);

    // The paid job is not lost: the error names the key that gets it back, free.
    const key = /--idempotency-key (\S+)/.exec(result.stderr)?.[1];
    expect(key).toBeTruthy();
    const recovered = await cli(['video', 'create', 'torch', '--yes', '--no-wait', '--idempotency-key', key!]);
    expect(recovered.code).toBe(0);
    expect(recovered.stdout.trim()).toBe((state.videos as { id: string }[])[0]!.id);
    expect(await charges(-180)).toBe(1);
  });

  it('recovers from a lost answer to a paid call by replaying it for free', async () => {
    // Seeded faults: a mix where some answers are cut after the charge was made.
    await project.mock.config({ faults: { rate: 0.5, kinds: ['truncate', 'reset', '500'] } });
    let succeeded = 0;
    for (let i = 0; i < 4; i++) {
      const result = await cli(['video', 'create', `torch ${i}`, '--yes', '--no-wait', '--json']);
      if (result.code === 0) succeeded += 1;
    }
    await project.mock.config({ faults: { rate: 0 } });
    const state = await project.mock.state();
    // Every video job that exists was charged exactly once, whether or not its answer arrived.
    expect(await charges(-180)).toBe((state.videos as unknown[]).length);
    expect(succeeded).toBeGreaterThan(0);
  });
});

describe('output discipline', () => {
  it('keeps secrets out of --verbose traces', async () => {
    const result = await cli(['workflows', 'list', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('GET');
    expect(result.stderr).not.toContain(project.mock.apiKey);
  });

  it('prints nothing on stderr with -q on success', async () => {
    const result = await cli(['generate', 'barrel', '--agent', 'sprite-artist', '-q']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });
});

describe('demo and --mock', () => {
  it('runs the guided tour offline and saves every kind of asset', async () => {
    const result = await cli(['demo'], project.home.env);
    expect(result.code).toBe(0);
    const files = fs.readdirSync(path.join(project.home.cwd, 'assetgen-demo'));
    expect(files.filter((file) => file.endsWith('.png')).length).toBeGreaterThanOrEqual(3);
    expect(files.some((file) => !file.endsWith('.png'))).toBe(true);
    expect(result.stdout.trim().split('\n').length).toBe(files.length);
    // Each step says what it cost, and the balance the mock reports after it agrees: the figures
    // are per step (the mock's prices), not a running sum.
    const steps = [...result.stderr.matchAll(/Charged (\d+) credits?; (\d+) remaining/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(steps.map(([charged]) => charged)).toEqual([10, 15, 180, 10]);
    let balance = 1000;
    for (const [charged, remaining] of steps) expect(remaining).toBe((balance -= charged!));
  });

  it('refuses --json (a tour for a person): exit 2, stdout empty, the JSON error on stderr, nothing saved', async () => {
    const result = await cli(['demo', '--json'], project.home.env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: { code: 'usage', exitCode: 2, message: expect.stringContaining('has no --json') },
    });
    expect(fs.existsSync(path.join(project.home.cwd, 'assetgen-demo'))).toBe(false);
  });

  it('runs a single command against an in-process mock with --mock', async () => {
    const result = await cli(['workflows', 'list', '--mock', '--json'], project.home.env);
    expect(result.code).toBe(0);
    expect((parseJson(result) as { workflows: unknown[] }).workflows.length).toBeGreaterThanOrEqual(3);
  });
});
