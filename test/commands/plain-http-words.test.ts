// A key or a session over plain http:// to a host that is not loopback is refused (exit 2), and the
// refusal says what its reader can do: at the command line, pass --allow-insecure-http; behind an
// MCP tool, start the server with it; with the SDK, create the client with `allowInsecureHttp:
// true`. It used to name both to everyone ("--allow-insecure-http (allowInsecureHttp)"): the SDK's
// option to people at a terminal, who cannot give it, and a CLI flag to SDK users. Loopback only:
// the refused calls are never sent.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, InvalidArgumentError } from '../../src/index.js';
import { jsonError, runInProcess, tempHome, type CliResult } from '../support/cli.js';
import { startMcp } from '../support/mcp.js';

const REMOTE_HTTP = 'http://assets.example.com';
const RULE = 'plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1)';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const run = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> =>
  runInProcess(args, { env: { ...home.env, ...env }, cwd: home.cwd, input });

const remote = { ASSETGEN_BASE_URL: REMOTE_HTTP, ASSETGEN_API_KEY: 'agk_test_plain_http_0000' };

describe('the refusal of plain http:// to a host that is not loopback', () => {
  it('at the command line: names --allow-insecure-http, never the SDK option (exit 2)', async () => {
    for (const args of [
      ['workflows', 'list'],
      ['generate', 'sword', '--agent', 'sprite-artist'],
      ['auth', 'status'],
    ]) {
      const result = await run(args, remote);
      const label = args.join(' ');
      expect(result.code, label).toBe(2);
      expect(result.stderr, label).toContain(
        'error: Refusing to send an API key over plain http:// to assets.example.com (anyone on the network could read it).\n',
      );
      expect(result.stderr, label).toContain(`${RULE}. To send it to assets.example.com anyway, pass --allow-insecure-http.`);
      expect(result.stderr, label).not.toContain('allowInsecureHttp');
    }
  });

  it("with --json, in the error line and in `auth status`'s reason alike", async () => {
    const error = jsonError(await run(['workflows', 'list', '--json'], remote));
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/^Refusing to send an API key over plain http:\/\//) });
    expect(error.hint).toMatch(/pass --allow-insecure-http\.$/);
    expect(JSON.stringify(error)).not.toContain('allowInsecureHttp');
    const status = await run(['auth', 'status', '--json'], remote);
    expect(status.code).toBe(2);
    expect((JSON.parse(status.stdout) as { reason: unknown }).reason).toEqual(error);
  });

  it('`auth login` of a key for such a URL, and a session cookie, say the same', async () => {
    const login = await run(['auth', 'login', '--with-key', '--no-verify', '--base-url', REMOTE_HTTP], {}, 'agk_test_plain_http_0000');
    expect(login.code, login.stderr).toBe(2);
    expect(login.stderr).toContain('pass --allow-insecure-http.');
    expect(login.stderr).not.toContain('allowInsecureHttp');
    const session = await run(['workflows', 'list'], { ASSETGEN_BASE_URL: REMOTE_HTTP, ASSETGEN_SESSION: 'agsession=abc' });
    expect(session.code).toBe(2);
    expect(session.stderr).toContain('error: Refusing to send a session cookie over plain http://');
    expect(session.stderr).toContain('pass --allow-insecure-http.');
    expect(session.stderr).not.toContain('allowInsecureHttp');
  });

  it('with --allow-insecure-http the commands are not refused (auth status is ready, nothing sent)', async () => {
    const status = await run(['auth', 'status', '--json', '--allow-insecure-http'], remote);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ ready: true, reason: null });
  });

  it('over MCP: start the server with --allow-insecure-http', async () => {
    const mcp = await startMcp({ env: { ...home.env, ...remote }, cwd: home.cwd });
    try {
      const { result, json } = await mcp.call('list_workflows');
      expect(result.isError).toBe(true);
      expect(json.error.message).toMatch(/^Refusing to send an API key over plain http:\/\//);
      expect(json.error.hint).toContain(
        `${RULE}. To send it to assets.example.com anyway, start the server with \`assetgen mcp --allow-insecure-http\`.`,
      );
      expect(JSON.stringify(json)).not.toContain('allowInsecureHttp');
    } finally {
      await mcp.close();
    }
  });

  it('the SDK names its own option, and no flag of the command line', () => {
    let refused: unknown;
    try {
      createClient({ baseUrl: REMOTE_HTTP, apiKey: 'agk_test_plain_http_0000' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    const { message, hint } = refused as InvalidArgumentError;
    expect(message).toBe('Refusing to send an API key over plain http:// to assets.example.com (anyone on the network could read it).');
    expect(hint).toContain(RULE);
    expect(hint).toContain('`allowInsecureHttp: true`');
    expect(`${message} ${hint}`).not.toContain('--allow-insecure-http');
  });
});
