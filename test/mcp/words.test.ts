// MCP texts name the tools' own arguments and tools, never the command line's flags: every error a
// test can trigger through the tools, read by the SDK's client, carries no `--flag`, ` -o` or
// `-f <path>` (src/cli/front-end.ts holds both wordings). A command line the person may run in a
// terminal (in backticks, running `assetgen …`) and the documented `resume` command fields are
// command lines by design, and are left out of the scan.
import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let service: NodeJS.ProcessEnv;
let mcp: McpSession;

beforeAll(async () => {
  mock = await startMock({});
  home = tempHome();
  service = { ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie };
  mcp = await startMcp({ env: { ...home.env, ...service }, cwd: home.cwd });
});
afterAll(async () => {
  await mcp?.close();
  await mock.close();
  home.remove();
});
beforeEach(async () => {
  await mock.reset();
  await mock.config({ videoPollAfterMs: 20 });
  fs.rmSync(path.join(home.cwd, 'assetgen.yaml'), { force: true });
  fs.rmSync(path.join(home.cwd, 'assetgen.lock'), { force: true });
});

/** A flag of the command line: `--force`, ` -o`, `-f <path>`. */
const CLI_FLAG = /(?:^|[\s(`'"])(?:--[a-z][a-z-]*|-o\b|-f <)/m;

/** The result's texts, without what is a command line by design (a `resume` field; a backticked shell line running `assetgen …`). */
function textsToScan(result: CallToolResult): string[] {
  const dropResume = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(dropResume)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([key, field]) => !(key === 'resume' && typeof field === 'string'))
              .map(([key, field]) => [key, dropResume(field)]),
          )
        : value;
  return result.content
    .flatMap((item) => (item.type === 'text' ? [item.text] : []))
    .map((text) => {
      try {
        return JSON.stringify(dropResume(JSON.parse(text)));
      } catch {
        return text;
      }
    })
    .map((text) => text.replace(/`(?:[^`]*\| )?assetgen [^`]*`/g, '`<command>`'));
}

/** Calls a tool that must fail, and checks its every text for CLI flags; returns the error object. */
async function failing(session: McpSession, tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const { result, json } = await session.call(tool, args);
  expect(result.isError, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(json)}`).toBe(true);
  for (const text of textsToScan(result)) expect(text, `${tool} ${JSON.stringify(args)}`).not.toMatch(CLI_FLAG);
  return json.error as Record<string, any>;
}

const charges = async (): Promise<number> => (await mock.state()).ledger.filter((entry) => entry.amount < 0).length;

describe('MCP errors name the tools’ arguments, never CLI flags', () => {
  it('saving: an existing file, a link in the way, an extension that is not media, the wrong kind of file', async () => {
    fs.writeFileSync(path.join(home.cwd, 'taken.png'), 'mine');
    const taken = await failing(mcp, 'generate_image', { prompt: 'sword', agent: 'sprite-artist', output: 'taken.png' });
    expect(taken.message).toContain('taken.png already exists.');
    expect(taken.hint).toBe('Pass `overwrite: true` to overwrite it, or choose another path with `output`.');
    expect(fs.readFileSync(path.join(home.cwd, 'taken.png'), 'utf8')).toBe('mine');

    fs.symlinkSync('taken.png', path.join(home.cwd, 'linked.png'));
    expect((await failing(mcp, 'generate_image', { prompt: 'sword', agent: 'sprite-artist', output: 'linked.png' })).hint).toContain(
      'choose another path with `output`',
    );
    const text = await failing(mcp, 'generate_image', { prompt: 'sword', agent: 'sprite-artist', output: 'notes.txt' });
    expect(text.message).toMatch(/^`output: "notes.txt"`: \.txt is not a media type/);
    const kind = await failing(mcp, 'create_video', { prompt: 'torch', confirm_credits: 180, output: 'clip.png' });
    expect(kind.message).toMatch(/^`output: "clip.png"` names an image file/);
    expect(await charges()).toBe(0);
  });

  it('arguments: an empty prompt or agent, an odd idempotency key, a blank or repeated override node', async () => {
    expect((await failing(mcp, 'generate_image', { prompt: ' ', agent: 'sprite-artist' })).hint).toBe(
      'Describe the asset, e.g. {"prompt": "rusty sword icon", "agent": "sprite-artist"}',
    );
    expect((await failing(mcp, 'generate_image', { prompt: 'sword', agent: ' ' })).message).toBe(
      '`agent` needs an agent id (see `list_agents`).',
    );
    expect((await failing(mcp, 'generate_image', { prompt: 'sword', agent: 'sprite-artist', idempotency_key: 'a key' })).message).toBe(
      'Invalid `idempotency_key`: use 1-255 visible ASCII characters.',
    );
    await failing(mcp, 'run_workflow', { id: 'wf_sprite_sheet', overrides: { ' ': 'a dwarf' } });
    await failing(mcp, 'run_workflow', { id: 'wf_sprite_sheet', overrides: { character: 'a dwarf', ' character': 'an elf' } });
    // An argument the tool does not have (a typo of `overwrite`) is refused, never dropped while paying.
    for (const [tool, args] of [
      ['generate_image', { prompt: 'sword', agent: 'sprite-artist', overwite: true }],
      ['list_agents', { bogus: 1 }],
    ] as const) {
      const { result } = await mcp.call(tool, args);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/Unrecognized key/);
    }
    expect(await charges()).toBe(0);
  });

  it('paid calls: an answer lost to a server error, a wait that cannot go on, an id the service does not know', async () => {
    await mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const lost = await failing(mcp, 'generate_image', { prompt: 'sword', agent: 'sprite-artist' });
    expect(lost.hint).toContain(`Call generate_image again with \`idempotency_key: "${lost.idempotencyKey}"\``);
    await mock.config({ faults: { rate: 0 } });

    const started = (await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { body: {} })).json as { id: string };
    await mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const kept = await failing(mcp, 'wait_run', { id: started.id, output_dir: 'tiles' });
    // Started outside this server and never answered for here: nothing says it was paid, only how to wait again.
    // Waiting again saves where this call was told to: the hint carries `output_dir`.
    expect(kept.hint).toContain(`to wait for it again: \`wait_run\` with {"id": "${started.id}", "output_dir": "tiles/"} (no new charge)`);
    expect(kept.hint).not.toContain('paid');
    expect(kept.job).toMatchObject({ id: started.id, resume: expect.stringMatching(/^assetgen runs wait /) });
    await mock.config({ faults: { rate: 0 } });

    expect((await failing(mcp, 'wait_video', { id: 'vid_unknown1' })).hint).toContain('(`list_jobs` lists the jobs started');
  });

  it('an argument a tool does not have is refused by every tool, naming the tool and the argument, before anything runs', async () => {
    fs.writeFileSync(
      path.join(home.cwd, 'assetgen.yaml'),
      'assets:\n  - { id: crate, prompt: a crate, agent: sprite-artist, out: crate.png }\n',
    );
    const { tools } = await mcp.client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(11);
    for (const tool of tools) {
      const { result, json } = await mcp.call(tool.name, { not_an_argument: 1 });
      expect(result.isError, tool.name).toBe(true);
      expect(json.text, tool.name).toContain(`Invalid arguments for tool ${tool.name}:`);
      expect(json.text, tool.name).toMatch(/Unrecognized key: "not_an_argument"/);
    }
    // "Regenerate just this one" is not an argument of build: refused, never answered `unchanged`.
    for (const args of [{ force: true }, { ids: ['crate'], force: true }]) {
      const { result, json } = await mcp.call('build', args);
      expect(result.isError).toBe(true);
      expect(json.text).toContain('Invalid arguments for tool build:');
      expect(json.text).toMatch(/Unrecognized key: "force"/);
    }
    expect(fs.existsSync(path.join(home.cwd, 'assetgen.lock'))).toBe(false);
    expect(fs.existsSync(path.join(home.cwd, 'crate.png'))).toBe(false);
    expect((await mock.state()).requests).toBe(0);
  });

  it('build: no manifest, videos not confirmed, a cap that holds assets back, a plan over the cap', async () => {
    expect((await failing(mcp, 'build', {})).hint).toBe("Run `assetgen init` to create one, or start the server in the manifest's folder.");
    const manifest = (assets: string) => fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), `assets:\n${assets}`);
    manifest('  - { id: torch, video: torch flickering, out: fx/ }\n');
    const videos = await failing(mcp, 'build', {});
    expect(videos.message).toMatch(/pass `confirm_videos: true` to confirm\.$/);
    expect(videos.hint).toBe('Call build with `dry_run: true` to see the whole plan first.');

    manifest('  - { id: crate, prompt: a wooden crate, agent: sprite-artist, out: built/crate.png }\n');
    const capped = await failing(mcp, 'build', { max_credits: 0 });
    expect(capped.message).toMatch(/^Held at `max_credits: 0`: 1 asset not built/);
    // The price is unknown: the remedies in the tool's words (its `ids`, no `max_credits`), never "raise".
    const uncapped = 'build one asset of each once without the cap: `build` with {"ids": ["crate"]} and no `max_credits`.';
    expect(capped.hint).toContain(uncapped);
    expect(capped.hint).not.toMatch(/--max-credits|raise/i);
    const unknownPlan = await failing(mcp, 'build', { dry_run: true, max_credits: 0 });
    expect(unknownPlan.hint).toContain(uncapped);
    fs.writeFileSync(
      path.join(home.cwd, 'assetgen.yaml'),
      'budget: 5\nassets:\n  - { id: crate, prompt: a wooden crate, agent: sprite-artist, out: built/crate.png }\n',
    );
    expect((await failing(mcp, 'build', {})).hint).toContain("and no `max_credits`, the manifest's `budget` removed for that build.");
    fs.writeFileSync(
      path.join(home.cwd, 'assetgen.yaml'),
      'prices: { agents: { sprite-artist: 10 } }\nassets:\n  - { id: crate, prompt: a wooden crate, agent: sprite-artist, out: built/crate.png }\n',
    );
    const overPlan = await failing(mcp, 'build', { dry_run: true, max_credits: 0 });
    expect(overPlan.hint).toBe(
      "Raise the budget (or `max_credits`), build fewer assets, or leave out `max_credits` and remove the manifest's `budget` to lift the cap.",
    );
    expect(await charges()).toBe(0);
  });

  it('configuration: no service URL, or only an API key for listing agents', async () => {
    const { ASSETGEN_BASE_URL: _unset, ...withoutUrl } = service;
    const unconfigured = await startMcp({ env: { ...home.env, ...withoutUrl }, cwd: home.cwd });
    try {
      const noUrl = await failing(unconfigured, 'generate_image', { prompt: 'sword', agent: 'sprite-artist' });
      expect(noUrl.hint).toBe(
        "Set ASSETGEN_BASE_URL in the server's environment, or run `assetgen auth login --base-url <url>` in a terminal.",
      );
      fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), 'assets:\n  - { id: crate, prompt: a crate, agent: sprite-artist }\n');
      expect((await failing(unconfigured, 'build', { dry_run: true })).hint).toContain('or plan against the bundled mock');
    } finally {
      await unconfigured.close();
    }
    const keyOnly = await startMcp({ env: { ...home.env, ...service, ASSETGEN_SESSION: '' }, cwd: home.cwd });
    try {
      const agents = await failing(keyOnly, 'list_agents', {});
      expect(agents.hint).toContain('(`generate_image` with its `agent`)');
      expect(agents.hint).toContain('`list_agents` then lists the agents');
    } finally {
      await keyOnly.close();
    }
  });
});
