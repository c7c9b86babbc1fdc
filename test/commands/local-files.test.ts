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
    expect((parseJson(result).jobs as { id: string }[]).map((job) => job.id)).toEqual(['vid_ok']);
  });
});
