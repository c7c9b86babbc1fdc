// `auth status`: its verdict (`ready`, the exit code) is the one the commands reach, from the same
// checks (the base URL every command refuses, plain http:// to a host that is not loopback), and
// with --json its document is the answer, ready or not: one document on stdout, nothing on stderr.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject();

/** Plain http to a host that is not loopback (TEST-NET-like: nothing is ever sent there). */
const REMOTE_HTTP = 'http://10.255.255.1:9/';

/** The env with the mock's key and this base URL, or none. */
const withBaseUrl = (baseUrl?: string): NodeJS.ProcessEnv => ({
  ...project.home.env,
  ASSETGEN_API_KEY: project.mock.apiKey,
  ...(baseUrl === undefined ? {} : { ASSETGEN_BASE_URL: baseUrl }),
});

/** `--json` status: exactly one document on stdout, nothing on stderr (even without -q). */
function statusDocument(result: CliResult): Record<string, any> {
  expect(result.stderr).toBe('');
  return parseJson(result);
}

/** What `auth status` says, human and --json, next to what a command says with the same setup. */
async function compare(env: NodeJS.ProcessEnv, command: string[] = ['workflows', 'list']) {
  const human = await project.run(['auth', 'status'], { env });
  const json = await project.run(['auth', 'status', '--json'], { env });
  const commandJson = await project.run([...command, '--json', '-q'], { env });
  return { human, json, commandJson };
}

describe('auth status: the verdict the commands reach', () => {
  for (const [name, baseUrl, message] of [
    ['not a URL', 'not a url', /Invalid base URL "not a url"/],
    ['not http(s)', 'ftp://x', /only http and https are supported/],
    ['plain http to a host that is not loopback', REMOTE_HTTP, /Refusing to send an API key over plain http:\/\//],
  ] as const) {
    it(`${name}: not ready, with the command's reason and exit code (2)`, async () => {
      const { human, json, commandJson } = await compare(withBaseUrl(baseUrl));
      expect(commandJson.code).toBe(2);
      const commandError = jsonError(commandJson);
      expect(commandError.message).toMatch(message);

      expect(human.code, human.stderr).toBe(2);
      expect(human.stdout).toMatch(/Ready: +no/);
      expect(human.stderr).toMatch(message);

      expect(json.code).toBe(2);
      const document = statusDocument(json);
      expect(document).toMatchObject({ ready: false, authenticated: true });
      expect(document.reason).toEqual(commandError);
    });
  }

  it('a key stored for plain http to a remote host: not ready (exit 2), as generate refuses it', async () => {
    const env = project.home.env;
    // Unverified, login still refuses what every command would refuse: nothing stored.
    const refused = await project.run(['auth', 'login', '--with-key', '--no-verify', '--base-url', REMOTE_HTTP], {
      env,
      input: project.mock.apiKey,
    });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/Refusing to send an API key over plain http/);
    expect(fs.existsSync(path.join(env.ASSETGEN_CONFIG_DIR!, 'credentials.json'))).toBe(false);
    // Stored with --allow-insecure-http, it is refused by a command run without it.
    const login = await project.run(['auth', 'login', '--with-key', '--no-verify', '--base-url', REMOTE_HTTP, '--allow-insecure-http'], {
      env,
      input: project.mock.apiKey,
    });
    expect(login.code, login.stderr).toBe(0);
    const { human, json, commandJson } = await compare(env, ['generate', 'x', '--agent', 'sprite-artist']);
    expect(commandJson.code).toBe(2);
    expect(human.code).toBe(2);
    expect(human.stdout).toMatch(/Ready: +no/);
    expect(json.code).toBe(2);
    const document = statusDocument(json);
    expect(document).toMatchObject({ ready: false, baseUrl: { source: 'file' }, apiKey: { source: 'file' } });
    expect(document.reason).toEqual(jsonError(commandJson));
  });

  it('a session cookie over plain http to a remote host is refused the same way', async () => {
    const env = { ...project.home.env, ASSETGEN_BASE_URL: REMOTE_HTTP, ASSETGEN_SESSION: project.mock.sessionCookie };
    const json = await project.run(['auth', 'status', '--json'], { env });
    expect(json.code).toBe(2);
    expect(statusDocument(json).reason).toMatchObject({ exitCode: 2, message: expect.stringMatching(/a session cookie over plain http/) });
  });

  it('--allow-insecure-http lets the commands send it, so status is ready (exit 0)', async () => {
    const json = await project.run(['auth', 'status', '--json', '--allow-insecure-http'], { env: withBaseUrl(REMOTE_HTTP) });
    expect(json.code, json.stderr).toBe(0);
    expect(statusDocument(json)).toMatchObject({ ready: true, reason: null });
  });

  it('plain http to loopback (the mock) is ready, and the commands do reach it', async () => {
    const env = withBaseUrl(project.mock.url);
    const json = await project.run(['auth', 'status', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(statusDocument(json)).toMatchObject({ ready: true, reason: null, authenticated: true });
    const human = await project.run(['auth', 'status'], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Ready: +yes/);
    expect(human.stderr).toBe('');
    expect((await project.run(['workflows', 'list', '-q'], { env })).code).toBe(0);
  });

  it('a key but no base URL: not ready, exit 4, with the reason the commands give', async () => {
    const { human, json, commandJson } = await compare(withBaseUrl());
    expect(commandJson.code).toBe(4);
    expect(human.code).toBe(4);
    expect(human.stderr).toContain('No service URL is configured');
    expect(json.code).toBe(4);
    expect(statusDocument(json).reason).toEqual(jsonError(commandJson));
  });
});

describe('auth status --json: one document on one stream', () => {
  it('not logged in: the document on stdout (ready false, the reason), nothing on stderr, exit 4', async () => {
    for (const quiet of [[], ['-q']]) {
      const result = await project.run(['auth', 'status', '--json', ...quiet], { env: project.home.env });
      expect(result.code).toBe(4);
      const document = statusDocument(result);
      expect(document).toMatchObject({
        ready: false,
        authenticated: false,
        baseUrl: null,
        apiKey: null,
        session: null,
        reason: { code: 'missing_credentials', exitCode: 4, message: expect.stringContaining('Not logged in') },
      });
      expect(document.reason.hint).toContain('assetgen auth login');
    }
  });

  it('ready: the document with reason null, exit 0', async () => {
    const result = await project.run(['auth', 'status', '--json'], { env: project.env() });
    expect(result.code).toBe(0);
    expect(statusDocument(result)).toMatchObject({ ready: true, reason: null });
  });

  it('people still see why on stderr', async () => {
    const result = await project.run(['auth', 'status'], { env: project.home.env });
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/Ready: +no/);
    expect(result.stderr).toMatch(/^error: Not logged in/m);
  });

  it('a credentials file it cannot read is a failure, not an answer: stdout empty, one JSON line on stderr', async () => {
    const dir = project.home.env.ASSETGEN_CONFIG_DIR!;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'credentials.json'), '[1, 2]');
    const result = await project.run(['auth', 'status', '--json'], { env: project.home.env });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(jsonError(result)).toMatchObject({ exitCode: 4 });
  });
});
