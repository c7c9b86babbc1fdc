// Local files assetgen reads: a damaged one is named with what to do, never "a bug in assetgen".
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let credentials: string;

beforeAll(async () => {
  mock = await startMock({});
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  home = tempHome();
  credentials = path.join(home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json');
  fs.mkdirSync(path.dirname(credentials), { recursive: true });
});
afterEach(() => home.remove());

const cli = (args: string[], input?: string) => runInProcess(args, { env: home.env, cwd: home.cwd, input });

describe('a damaged credentials file', () => {
  for (const [name, content] of [
    ['not JSON', '{"apiKey": "agk_'],
    ['wrongly typed', '{"apiKey": 42, "baseUrl": ["x"]}'],
    ['an array', '[]'],
  ] as const) {
    it(`${name}: commands name the file and the fix (exit 4); auth login replaces it`, async () => {
      fs.writeFileSync(credentials, content);
      const status = await cli(['auth', 'status', '--json']);
      expect(status.code).toBe(4);
      const error = jsonError(status);
      expect(error.message).toContain(credentials);
      expect(error.hint).toContain('assetgen auth login');
      const generate = await cli(['generate', 'sword', '-a', 'sprite-artist']);
      expect(generate.code).toBe(4);
      expect(generate.stderr).not.toContain('bug in assetgen');

      const login = await cli(['auth', 'login', '--with-key', '--base-url', mock.url], mock.apiKey);
      expect(login.code, login.stderr).toBe(0);
      const after = await cli(['auth', 'status', '--json']);
      expect(after.code).toBe(0);
      expect(parseJson(after).apiKey.source).toBe('file');
    });
  }

  it('a base URL with a password is never shown with it', async () => {
    const url = mock.url.replace('http://', 'http://user:s3cret@');
    const login = await cli(['auth', 'login', '--with-key', '--base-url', url, '--json'], mock.apiKey);
    expect(login.code).toBe(0);
    const status = await cli(['auth', 'status', '--json']);
    expect(status.stdout + status.stderr + login.stdout + login.stderr).not.toContain('s3cret');
  });
});

describe('the job journal', () => {
  it('skips lines that are not valid records and keeps the rest', async () => {
    const journal = path.join(home.env.ASSETGEN_STATE_DIR!, 'jobs.jsonl');
    fs.mkdirSync(path.dirname(journal), { recursive: true });
    const good = {
      kind: 'video',
      id: 'vid_ok',
      baseUrl: mock.url,
      state: 'running',
      label: 'a torch',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    };
    fs.writeFileSync(
      journal,
      [
        JSON.stringify(good),
        '{"kind": "video", "id": 7, "baseUrl": "x"}',
        '{"kind": "spaceship", "id": "a", "baseUrl": "x"}',
        '{"kind": "run", "id": "run_$(touch pwned)", "baseUrl": "x", "state": "running"}',
        '[1,2]',
        '{"kind": "video", "id": "vid_torn", "base',
      ].join('\n'),
    );
    const result = await cli(['jobs', '--json']);
    expect(result.code).toBe(0);
    const document = parseJson(result);
    expect((document.jobs as { id: string }[]).map((job) => job.id)).toEqual(['vid_ok']);
    // Each skipped line is named: its line, its id when it had a plain one, and why.
    expect(document.skipped).toEqual([
      { line: 2, id: null, why: expect.stringContaining('"id"') },
      { line: 3, id: 'a', why: expect.stringContaining('"kind"') },
      { line: 4, id: 'run_$(touch pwned)', why: expect.stringContaining('"id"') },
      { line: 5, id: null, why: 'not a JSON object' },
      { line: 6, id: null, why: expect.stringContaining('not JSON') },
    ]);
    const human = await cli(['jobs']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('vid_ok');
    expect(human.stderr.match(/^warning: skipped the record of .*jobs\.jsonl on line \d/gm)).toHaveLength(5);
    expect(human.stderr).toContain(`${journal} on line 6: not JSON (a line cut short by a crash?)`);
  });

  it('a job only looked at (bare updates: `video get <id>`, a build following its own) is not listed as started here', async () => {
    const journal = path.join(home.env.ASSETGEN_STATE_DIR!, 'jobs.jsonl');
    fs.mkdirSync(path.dirname(journal), { recursive: true });
    const at = '2026-01-01T00:00:00Z';
    const lines = [
      { kind: 'video', id: 'vid_seen', baseUrl: mock.url, state: 'running', updatedAt: at },
      { kind: 'video', id: 'vid_mine', baseUrl: mock.url, state: 'running', label: 'a torch', createdAt: at, updatedAt: at },
    ];
    fs.writeFileSync(journal, lines.map((line) => JSON.stringify(line)).join('\n'));
    const jobs = parseJson(await cli(['jobs', '--json'])).jobs as { id: string }[];
    expect(jobs.map((job) => job.id)).toEqual(['vid_mine']);
  });

  it('a record whose times are null still lists, in human output and --json', async () => {
    const journal = path.join(home.env.ASSETGEN_STATE_DIR!, 'jobs.jsonl');
    fs.mkdirSync(path.dirname(journal), { recursive: true });
    const lines = [
      { kind: 'video', id: 'vid_null', baseUrl: mock.url, state: 'running', label: 'a torch', createdAt: null },
      { kind: 'run', id: 'run_null', baseUrl: mock.url, state: 'running', label: 'wf_tileset', createdAt: null, updatedAt: null },
      {
        kind: 'run',
        id: 'run_late',
        baseUrl: mock.url,
        state: 'succeeded',
        label: 'wf_tileset',
        createdAt: null,
        updatedAt: '2026-01-02T00:00:00Z',
      },
    ];
    fs.writeFileSync(journal, lines.map((line) => JSON.stringify(line)).join('\n'));
    const human = await cli(['jobs']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).not.toContain('bug in assetgen');
    for (const id of ['vid_null', 'run_null', 'run_late']) expect(human.stdout).toContain(id);
    expect(human.stdout).toContain('2026-01-02T00:00:00Z');
    const json = await cli(['jobs', '--json']);
    expect(json.code).toBe(0);
    const jobs = parseJson(json).jobs as { id: string; createdAt: string; updatedAt: string }[];
    expect(jobs.map((job) => job.id)).toEqual(['run_late', 'vid_null', 'run_null']);
    for (const job of jobs) expect([typeof job.createdAt, typeof job.updatedAt]).toEqual(['string', 'string']);
  });

  it('a journal that cannot be read names the file and the repair, exit 1 (not a usage error)', async () => {
    const journal = path.join(home.env.ASSETGEN_STATE_DIR!, 'jobs.jsonl');
    fs.mkdirSync(journal, { recursive: true }); // a folder where the file should be: EISDIR even as root
    const json = await cli(['jobs', '--json']);
    expect(json.code).toBe(1);
    expect(jsonError(json)).toMatchObject({ code: 'local_file', exitCode: 1, file: journal });
    expect(jsonError(json).message).toContain(journal);
    expect(jsonError(json).hint).toMatch(/^Move that folder away or remove it; assetgen then starts a new journal/);
    const human = await cli(['jobs']);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(journal);
    expect(human.stderr).not.toContain('bug in assetgen');
  });
});

describe('other local files', () => {
  for (const [name, content, problem] of [
    ['null', 'null', 'unknown format'],
    ['a damaged record', '{"version": 1, "files": [null], "createdDirs": []}', 'files[0]'],
    ['a damaged MCP record', '{"version": 1, "files": [], "createdDirs": [], "mcp": [{"path": 7}]}', 'mcp[0]'],
  ] as const) {
    it(`skills-manifest.json holding ${name}: named with the repair, exit 1, for every skills command`, async () => {
      const manifest = path.join(home.env.ASSETGEN_CONFIG_DIR!, 'skills-manifest.json');
      fs.writeFileSync(manifest, content);
      for (const args of [
        ['skills', 'list'],
        ['skills', 'uninstall', '--yes'],
        ['skills', 'update', '--yes'],
      ]) {
        const human = await cli(args);
        expect(human.code, `${args.join(' ')}: ${human.stderr}`).toBe(1);
        expect(human.stderr).toContain(manifest);
        expect(human.stderr).toContain(problem);
        expect(human.stderr).toMatch(/Fix or remove it/);
        expect(human.stderr).not.toContain('bug in assetgen');
      }
      const json = await cli(['skills', 'list', '--json']);
      expect(jsonError(json)).toMatchObject({ code: 'damaged_manifest', exitCode: 1 });
    });
  }

  it('-o under a regular file (ENOTDIR): the path and what to do, exit 1, before anything is paid', async () => {
    fs.writeFileSync(path.join(home.cwd, 'plain'), 'x');
    const before = (await mock.state()).ledger.length;
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
    const human = await runInProcess(['generate', 'sword', '-a', 'sprite-artist', '-o', 'plain/sub/x.png'], { env, cwd: home.cwd });
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(path.join(home.cwd, 'plain', 'sub', 'x.png'));
    expect(human.stderr).toMatch(/not a folder/);
    expect(human.stderr).not.toContain('bug in assetgen');
    const json = await runInProcess(['generate', 'sword', '-a', 'sprite-artist', '-o', 'plain/x.png', '--json'], { env, cwd: home.cwd });
    expect(jsonError(json)).toMatchObject({ code: 'local_file', exitCode: 1 });
    expect((await mock.state()).ledger.length).toBe(before);
  });
});
