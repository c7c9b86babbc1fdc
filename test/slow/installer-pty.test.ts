// The interactive installer through a real pseudo-terminal: pick agents, pick the scope, give the
// key at a masked prompt, read the plan, confirm; and every way of backing out of each prompt.
// Each test has its own temp home, so they run concurrently (each is a real process, mostly waiting).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic, type TestContext } from 'vitest';
import { readManifest } from '../../src/installer/manifest.js';
import { runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { KEYS, spawnPty } from '../support/pty.js';
import { OWN_SCRIPT } from '../../src/installer/render.js';

const KEY = 'agk_0000000000000000000000000000000000000000';

// A key typed at the installer is checked against the service before it is stored (as `auth login`
// does): the real mock answers.
let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

/** A temp home removed when the test ends, and a pty spawner in it. Concurrent tests must use their
 * own context's hook. */
function setup({ onTestFinished }: TestContext) {
  const home = tempHome();
  onTestFinished(() => home.remove());
  const config = (file: string) => path.join(home.env.ASSETGEN_CONFIG_DIR!, file);
  return {
    home,
    manifest: config('skills-manifest.json'),
    credentials: config('credentials.json'),
    spawn: (args: string[], extra: Record<string, string> = {}) => spawnPty(args, { env: { ...home.env, ...extra }, cwd: home.cwd }),
  };
}

/** Installs for Cursor in user scope (in-process: the setup is not what is tested), then makes the
 * file look like an older version so that update has something to write. */
async function installedCursor(expect: ExpectStatic, t: ReturnType<typeof setup>) {
  const result = await runInProcess(['install', '--agent', 'cursor', '--scope', 'user'], {
    env: { ...t.home.env, ASSETGEN_API_KEY: KEY },
    cwd: t.home.cwd,
  });
  expect(result.code, result.stderr).toBe(0);
  const skill = path.join(t.home.home, '.cursor', 'skills', 'assetgen', 'SKILL.md');
  fs.appendFileSync(skill, '\n<!-- an older version -->\n');
  return { skill, skillBefore: fs.readFileSync(skill, 'utf8'), manifestBefore: fs.readFileSync(t.manifest, 'utf8') };
}

describe.concurrent('assetgen install on a terminal', () => {
  it('offers registering the MCP server as an extra choice, and writes .mcp.json without the key', async (context) => {
    const { expect } = context;
    const { home, spawn } = setup(context);
    fs.mkdirSync(path.join(home.home, '.claude'));
    const session = spawn(['install'], { ASSETGEN_API_KEY: KEY, ASSETGEN_BASE_URL: 'https://assets.example.com' });
    await session.waitFor('which coding agents');
    expect(session.screen()).toContain('Also register the assetgen MCP server');
    session.write('\x1b[A'); // up from the first choice wraps to the last: the MCP server
    session.write(KEYS.space);
    session.write(KEYS.enter);
    await session.waitFor('project or for your user');
    session.write(KEYS.enter);
    await session.waitFor('Write these files?');
    expect(session.screen()).toContain(`add        ${path.join(home.cwd, '.mcp.json')} (Claude Code)`);
    session.write(KEYS.enter);
    expect(await session.exit).toBe(0);
    const config = fs.readFileSync(path.join(home.cwd, '.mcp.json'), 'utf8');
    // No assetgen on the test's PATH: the entry starts this copy by absolute paths.
    expect(JSON.parse(config)).toEqual({
      mcpServers: { assetgen: { type: 'stdio', command: process.execPath, args: [OWN_SCRIPT, 'mcp'] } },
    });
    expect(config).not.toContain(KEY);
  });

  it('preselects detected agents, asks scope and key, shows the plan, and installs on confirm', async (context) => {
    const { expect } = context;
    const { home, credentials, spawn } = setup(context);
    fs.mkdirSync(path.join(home.home, '.claude'));
    const key = mock.apiKey;
    const session = spawn(['install']);
    await session.waitFor('which coding agents');
    expect(session.screen()).toMatch(/◉ Claude Code \(detected\)/);
    session.write(KEYS.down); // to OpenAI Codex
    session.write(KEYS.space);
    session.write(KEYS.enter);
    await session.waitFor('project or for your user');
    session.write(KEYS.enter); // this project
    await session.waitFor('Service URL');
    session.write('not a url\r'); // validated at the prompt
    await session.waitFor('Use a full URL');
    for (let i = 0; i < 'not a url'.length; i++) session.write('\x7f');
    session.write(`${mock.url}\r`);
    await session.waitFor('API key');
    session.write(`${key}\r`);
    // Checked exactly as `auth login` checks it, before the plan.
    await session.waitFor('The service accepted the API key (GET /api/v1/workflows');
    await session.waitFor('Write these files?');
    // The plan shows the settings it will store (the key masked) before anything is written.
    expect(session.screen()).toMatch(
      new RegExp(`Also stores in .*credentials\\.json: base URL ${mock.url.replace(/\./g, '\\.')}/?, API key agk_…${key.slice(-4)}`),
    );
    expect(fs.existsSync(credentials)).toBe(false);
    // The plan names every file before anything is written.
    expect(session.screen()).toContain(path.join('.claude', 'skills', 'assetgen'));
    expect(session.screen()).toContain(path.join('.agents', 'skills', 'assetgen'));
    for (const file of ['SKILL.md', path.join('references', 'commands.md'), path.join('references', 'prompting.md')])
      expect(session.screen()).toContain(`create    ${file}`);
    expect(fs.existsSync(path.join(home.cwd, '.claude'))).toBe(false);
    session.write(KEYS.enter);
    expect(await session.exit).toBe(0);

    expect(session.screen()).not.toContain(key);
    expect(session.screen()).toContain('*'.repeat(key.length));
    expect(fs.existsSync(path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(home.cwd, '.agents', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(credentials, 'utf8'))).toMatchObject({ apiKey: key, baseUrl: mock.url });
    // Setup finished: the CLI is ready to call the service.
    expect((await runInProcess(['auth', 'status'], { env: home.env, cwd: home.cwd })).code).toBe(0);
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    // The secret scan: nothing the installer wrote contains the key.
    const written = readManifest(home.env).files.map((entry) => entry.path);
    expect(written).toHaveLength(6);
    for (const file of written) expect(fs.readFileSync(file, 'utf8')).not.toContain(key);
    // And nowhere else under HOME (project included) but the CLI's own credentials file.
    const everything = fs.readdirSync(home.home, { recursive: true, encoding: 'utf8' }).map((p) => path.join(home.home, p));
    const holders = everything.filter((file) => fs.statSync(file).isFile() && fs.readFileSync(file, 'utf8').includes(key));
    expect(holders).toEqual([credentials]);
  });

  it('with a key already configured: no key prompt; user scope by arrow key; uninstall asks too', async (context) => {
    const { expect } = context;
    const { home, spawn } = setup(context);
    const session = spawn(['install'], { ASSETGEN_API_KEY: KEY, ASSETGEN_BASE_URL: 'https://assets.example.com' });
    await session.waitFor('which coding agents');
    expect(session.screen()).not.toContain('(detected)');
    session.write(KEYS.space); // Claude Code, the first choice
    session.write(KEYS.enter);
    await session.waitFor('project or for your user');
    session.write(KEYS.down);
    session.write(KEYS.enter);
    await session.waitFor('Write these files?');
    expect(session.screen()).not.toContain('API key');
    session.write('y\r');
    expect(await session.exit).toBe(0);
    const skill = path.join(home.home, '.claude', 'skills', 'assetgen', 'SKILL.md');
    expect(fs.existsSync(skill)).toBe(true);
    expect(fs.existsSync(path.join(home.cwd, '.claude'))).toBe(false);

    const removal = spawn(['skills', 'uninstall'], { ASSETGEN_API_KEY: KEY });
    await removal.waitFor('Remove these files?');
    expect(removal.screen()).toContain(skill);
    removal.write(KEYS.enter);
    expect(await removal.exit).toBe(0);
    expect(fs.existsSync(path.join(home.home, '.claude'))).toBe(false);
  });

  // Backing out of any install prompt (Ctrl-C, or Escape) leaves with 130 and nothing written.
  // Raw mode: Ctrl-C arrives as a key, not as SIGINT.
  // [name, args, extra env, the question to back out of, an earlier question and its answer]
  const WITH_URL = { ASSETGEN_BASE_URL: 'https://assets.example.com' };
  const installPrompts: [string, string[], Record<string, string>, string, [string, () => string][]?][] = [
    ['the agent selection', ['install'], {}, 'which coding agents'],
    ['the scope', ['install', '--agent', 'cursor'], {}, 'project or for your user'],
    ['the service URL', ['install', '--agent', 'cursor', '--scope', 'user'], {}, 'Service URL'],
    ['the API key', ['install', '--agent', 'cursor', '--scope', 'user'], WITH_URL, 'API key for the CLI'],
    [
      'the install confirmation',
      ['install', '--agent', 'cursor', '--scope', 'user'],
      { ...WITH_URL, ASSETGEN_API_KEY: KEY },
      'Write these files?',
    ],
    // The URL and key typed a moment ago are not stored either: they go in with the plan or not at all.
    [
      'the install confirmation after the URL and the key',
      ['install', '--agent', 'cursor', '--scope', 'user'],
      {},
      'Write these files?',
      [
        ['Service URL', () => `${mock.url}\r`],
        ['API key for the CLI', () => `${mock.apiKey}\r`],
      ],
    ],
  ];
  const backOuts: [key: string, prompts: string[]][] = [
    ['Ctrl-C', installPrompts.map(([name]) => name)],
    // Escape is the kit's; once on a list and once on a yes/no is enough to show the installer gets it.
    ['Escape', ['the agent selection', 'the install confirmation']],
  ];
  for (const [keyName, names] of backOuts) {
    for (const [name, args, extra, question, before] of installPrompts.filter(([n]) => names.includes(n))) {
      it(`${keyName} at ${name} exits 130 and writes nothing`, async (context) => {
        const { expect } = context;
        const { home, manifest, credentials, spawn } = setup(context);
        const session = spawn(args, extra);
        for (const [earlier, answer] of before ?? []) {
          await session.waitFor(earlier);
          session.write(answer());
        }
        await session.waitFor(question);
        session.write(keyName === 'Ctrl-C' ? KEYS.ctrlC : KEYS.escape);
        expect(await session.exit).toBe(130);
        expect(session.screen()).toContain('Interrupted.');
        expect(session.screen()).toContain('Nothing was changed.');
        expect(session.screen()).not.toContain('bug in assetgen');
        expect(fs.readdirSync(home.cwd)).toEqual([]);
        expect(fs.existsSync(path.join(home.home, '.cursor'))).toBe(false);
        expect(fs.existsSync(credentials)).toBe(false);
        expect(fs.existsSync(manifest)).toBe(false);
      });
    }
  }

  it('writes nothing when the plan is declined, not even the URL and key just typed', async (context) => {
    const { expect } = context;
    const { home, manifest, credentials, spawn } = setup(context);
    const session = spawn(['install', '--agent', 'cursor', '--scope', 'user']);
    await session.waitFor('Service URL');
    session.write(`${mock.url}\r`);
    await session.waitFor('API key for the CLI');
    session.write(`${mock.apiKey}\r`);
    await session.waitFor('Write these files?');
    session.write('n\r');
    // A "no" is a quiet cancel: exit 2, one line, no "error:".
    expect(await session.exit).toBe(2);
    expect(session.screen()).toContain('Cancelled: nothing was written.');
    expect(session.screen()).not.toContain('error:');
    expect(fs.existsSync(path.join(home.home, '.cursor'))).toBe(false);
    expect(fs.existsSync(manifest)).toBe(false);
    expect(fs.existsSync(credentials)).toBe(false);
  });

  it('refuses a key the service rejects, as auth login does: exit 4, nothing written or stored', async (context) => {
    const { expect } = context;
    const { home, manifest, credentials, spawn } = setup(context);
    const session = spawn(['install', '--agent', 'cursor', '--scope', 'user'], { ASSETGEN_BASE_URL: mock.url });
    await session.waitFor('API key for the CLI');
    session.write(`${KEY}\r`);
    expect(await session.exit).toBe(4);
    expect(session.screen()).toContain('The service rejected this API key (HTTP 401)');
    expect(session.screen()).not.toContain('Write these files?');
    expect(fs.existsSync(path.join(home.home, '.cursor'))).toBe(false);
    expect(fs.existsSync(manifest)).toBe(false);
    expect(fs.existsSync(credentials)).toBe(false);
  });

  it('without a service URL, asks for no key (it could not be checked) and says what to run', async (context) => {
    const { expect } = context;
    const { credentials, spawn } = setup(context);
    const session = spawn(['install', '--agent', 'cursor', '--scope', 'user']);
    await session.waitFor('Service URL');
    session.write('\r');
    await session.waitFor('Write these files?');
    expect(session.screen()).not.toContain('API key for the CLI');
    expect(session.screen()).toContain('Run `assetgen auth login --base-url <url>` before your agent uses the skill.');
    session.write(KEYS.enter);
    expect(await session.exit).toBe(0);
    expect(fs.existsSync(credentials)).toBe(false);
  });

  // The uninstall and update confirmations: Ctrl-C is 130 and a "no" is a quiet 2; either way the
  // files and the manifest stay exactly as they were.
  const confirmations: [command: string[], question: string, cancelled: string][] = [
    [['skills', 'uninstall', '--force'], 'Remove these files?', 'Cancelled: nothing was removed.'],
    [['skills', 'update', '--force'], 'Write these files?', 'Cancelled: nothing was written.'],
  ];
  for (const [command, question, cancelled] of confirmations) {
    for (const answer of ['Ctrl-C', 'no'] as const) {
      it(`${answer} at the ${command[1]} confirmation ${answer === 'no' ? 'exits 2' : 'exits 130'} and changes nothing`, async (context) => {
        const { expect } = context;
        const t = setup(context);
        const { skill, skillBefore, manifestBefore } = await installedCursor(expect, t);
        const session = t.spawn(command, { ASSETGEN_API_KEY: KEY });
        await session.waitFor(question);
        expect(session.screen()).toContain(path.dirname(skill)); // the plan names the copy
        session.write(answer === 'no' ? 'n\r' : KEYS.ctrlC);
        if (answer === 'no') {
          expect(await session.exit).toBe(2);
          expect(session.screen()).toContain(cancelled);
          expect(session.screen()).not.toContain('error:');
        } else {
          expect(await session.exit).toBe(130);
          expect(session.screen()).toContain('Nothing was changed.');
        }
        expect(fs.readFileSync(skill, 'utf8')).toBe(skillBefore);
        expect(fs.readFileSync(t.manifest, 'utf8')).toBe(manifestBefore);
      });
    }
  }
});
