// An agent that does only what the installed skill says. Three tasks — "a 64x64 potion icon",
// "the sprite workflow with a new prompt", "add five assets to the manifest and build them" — run
// through the command lines of the SKILL.md that `assetgen install` wrote, filled in as its
// "Fill in:" notes say, with --json against the real mock. Asserted: every agent id used came from
// assetgen's own output, each file's size is reported, the files are where the skill said to put
// them, and nothing paid for a video without the user's confirmation (the mock's ledger).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runInProcess, tempHome, type CliResult } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { OWN_SCRIPT } from '../../src/installer/render.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let skill: string;
/** The invocation the installed skill uses (its first code block: `<command> <command> -q --json`). */
let invocation: string;
/** What the agent ran, in order (arguments after the invocation). */
const transcript: string[][] = [];

beforeAll(async () => {
  mock = await startMock({ credits: 100_000 });
  await mock.config({ videoPollAfterMs: 10 });
  home = tempHome();
  // The user's set-up, in their own terminal: the key, then a session cookie (step 2 of the skill).
  const login = async (args: string[], input: string) => {
    const result = await runInProcess(['auth', 'login', ...args, '--base-url', mock.url], { env: home.env, cwd: home.cwd, input });
    expect(result.code, result.stderr).toBe(0);
  };
  await login(['--with-key'], mock.apiKey);
  await login(['--session'], mock.sessionCookie);
  const installed = await runInProcess(['install', '--agent', 'claude-code', '--scope', 'project', '--yes'], {
    env: home.env,
    cwd: home.cwd,
  });
  expect(installed.code, installed.stderr).toBe(0);
  skill = fs.readFileSync(path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md'), 'utf8');
  invocation = /```sh\n(.+) <command> -q --json\n```/.exec(skill)![1]!;
  // No assetgen on the test's PATH: this copy, by absolute paths (never an npx that may download).
  expect(invocation).toBe(`${process.execPath} ${OWN_SCRIPT}`);
});
afterAll(async () => {
  home.remove();
  await mock.close();
});

/** The text of the skill's section whose heading starts with `title` (e.g. "## 3."). */
function section(title: string): string {
  const start = skill.indexOf(`\n${title}`);
  expect(start, title).toBeGreaterThan(0);
  const end = skill.indexOf('\n## ', start + 1);
  return skill.slice(start, end < 0 ? undefined : end);
}

/** The command lines of a section's sh blocks. */
function commandsOf(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.trim().split('\n'));
}

/** The one command line of a section that contains `words` (or matches them), with its placeholders filled. */
function line(text: string, words: string | RegExp, fill: Record<string, string>): string {
  const found = commandsOf(text).filter((command) => (typeof words === 'string' ? command.includes(words) : words.test(command)));
  expect(found, String(words)).toHaveLength(1);
  let filled = found[0]!;
  for (const [placeholder, value] of Object.entries(fill)) filled = filled.split(placeholder).join(value);
  expect(filled, `unfilled placeholder in ${found[0]}`).not.toMatch(/<[a-zA-Z]+>/);
  return filled;
}

/** Splits a command line into arguments (double quotes only, as the skill writes them). */
const argv = (command: string): string[] => [...command.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((match) => match[0].replace(/"/g, ''));

/** Runs one of the skill's lines, as written after its invocation, in the project. */
async function run(command: string): Promise<CliResult & { json: any }> {
  expect(command.startsWith(`${invocation} `), command).toBe(true);
  const args = argv(command.slice(invocation.length + 1));
  expect(args, command).toContain('--json');
  transcript.push(args);
  const result = await runInProcess(args, { env: home.env, cwd: home.cwd, timeoutMs: 20_000 });
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { ...result, json };
}

/** `<agentId>` as step 2 says: an `id` of the kind needed from `agents --json`, never made up. */
async function agentIds(kind: 'image' | 'video'): Promise<{ id: string; name?: string; description?: string }[]> {
  const listed = await run(line(section('## 2.'), 'agents -q --json', {}));
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.json.source).toBe('service');
  return (listed.json.agents as { id: string; kind: string }[]).filter((agent) => agent.kind === kind);
}

/** The ids an agent's commands and manifests used, checked against what assetgen listed. */
const usedAgentIds = new Set<string>();
const listedAgentIds = new Set<string>();
async function pickAgent(purpose: RegExp): Promise<string> {
  const agents = await agentIds('image');
  for (const agent of agents) listedAgentIds.add(agent.id);
  const id = (agents.find((agent) => purpose.test(`${agent.name} ${agent.description}`)) ?? agents[0]!).id;
  usedAgentIds.add(id);
  return id;
}

const inProject = (file: string): string => path.resolve(home.cwd, file);
const videoCharges = async () => (await mock.state()).ledger.filter((entry) => /^video /.test(entry.reason));

describe('an agent following the installed skill', () => {
  it('checks access first, as step 1 says', async () => {
    const status = await run(line(section('## 1.'), 'auth status', {}));
    expect(status.code, status.stderr).toBe(0);
    expect(status.json).toMatchObject({ ready: true });
  });

  it('task 1, "a 64x64 potion icon": an icon agent from the list, the file named by purpose, its size reported', async () => {
    const steps = section('## 3.');
    // The skill's own example of naming by purpose is this very task.
    const target = /"a 64x64 potion icon" → `-o ([^`]+)`/.exec(steps)![1]!;
    const command = line(steps, ' generate ', {
      '<prompt>': 'a potion icon, 64x64 pixel art, transparent background',
      '<agentId>': await pickAgent(/icon/i),
      '<folder>/<name>.png': target,
    });
    const result = await run(command);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.saved).toEqual([inProject('assets/icons/potion.png')]);
    expect(fs.existsSync(inProject('assets/icons/potion.png'))).toBe(true);
    // The size it got, which is not the 64x64 asked for: the skill says to tell the user.
    expect(result.json.media).toEqual([{ path: inProject('assets/icons/potion.png'), format: 'png', width: 128, height: 128 }]);
    expect(steps).toMatch(/`media\[0\]`: `format`, `width`, `height`/);
    expect(steps).toContain('say so plainly');
  });

  it('task 2, "the sprite workflow with a new prompt": ids from the workflow list, outputs in the folder it named', async () => {
    const steps = section('## 2.');
    const listed = await run(line(steps, 'workflows list', {}));
    expect(listed.code, listed.stderr).toBe(0);
    const workflow = (listed.json.workflows as { id: string; name: string; overridableNodes: string[] }[]).find((entry) =>
      /sprite/i.test(`${entry.id} ${entry.name}`),
    )!;
    expect(workflow.overridableNodes.length).toBeGreaterThan(0);
    const running = section('## 4.');
    const folder = /a folder named for what\s+it holds, e\.g\. `([^`]+\/)`/.exec(running)![1]!;
    const before = (await mock.state()).credits;
    const result = await run(
      line(running, 'workflows run', {
        '<workflowId>': workflow.id,
        '<node>': workflow.overridableNodes[0]!,
        '<prompt>': 'a goblin merchant with a lantern',
        '<folder>/': folder,
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.status).toBe('succeeded');
    expect(result.json.saved.length).toBeGreaterThan(0);
    for (const file of result.json.saved as string[]) {
      expect(path.dirname(file)).toBe(inProject(folder));
      expect(fs.existsSync(file)).toBe(true);
    }
    expect((result.json.media as { path: string; width: number }[]).map((entry) => entry.path)).toEqual(result.json.saved);
    for (const entry of result.json.media as { width: unknown; height: unknown }[])
      expect(entry).toMatchObject({ width: 128, height: 128 });
    // What the JSON says it cost is what the service's ledger took.
    expect(result.json.credits.charged).toBe(before - (await mock.state()).credits);
  });

  it('task 3, "add five assets to the manifest and build them": init, the shape, the build; every file where its out says', async () => {
    const steps = section('## 8.');
    // The plain init (the engine's line beside it is for engine projects).
    const init = await run(line(steps, / init (?!--engine)/, {}));
    expect(init.code, init.stderr).toBe(0);
    const manifestFile = inProject('assetgen.yaml');
    expect(init.json).toMatchObject({ manifest: manifestFile, created: true });
    // The shape the skill shows, filled in: the starter's example asset and agent ids replaced.
    const shape = YAML.parse(/```yaml\n([\s\S]*?)```/.exec(steps)![1]!) as { defaults: object; assets: Record<string, unknown>[] };
    expect(shape.assets.map((asset) => Object.keys(asset).sort())).toContainEqual(['agent', 'id', 'out', 'prompt']);
    const icon = await pickAgent(/icon/i);
    const sprite = await pickAgent(/sprite|character/i);
    const tile = await pickAgent(/tile|texture/i);
    const document = YAML.parseDocument(fs.readFileSync(manifestFile, 'utf8'));
    document.setIn(['defaults', 'agent'], sprite);
    const workflows = (await run(line(section('## 2.'), 'workflows list', {}))).json.workflows as {
      id: string;
      overridableNodes: string[];
    }[];
    const assets = [
      { id: 'potion-red', prompt: 'red healing potion icon, 32x32 pixel art', agent: icon, out: 'assets/icons/potion-red.png' },
      { id: 'potion-blue', prompt: 'blue mana potion icon, 32x32 pixel art', agent: icon, out: 'assets/icons/potion-blue.png' },
      { id: 'crate', prompt: 'wooden crate sprite, 16-bit pixel art', out: 'assets/sprites/crate.png' },
      { id: 'floor-moss', prompt: 'mossy stone floor tile, seamless', agent: tile, out: 'assets/tiles/' },
      {
        id: 'merchant',
        workflow: workflows[0]!.id,
        set: { [workflows[0]!.overridableNodes[0]!]: 'a goblin merchant' },
        out: 'assets/sprites/merchant/',
      },
    ];
    document.set('assets', assets);
    fs.writeFileSync(manifestFile, document.toString());
    const ids = assets.map((asset) => asset.id).join(' ');

    const plan = await run(line(steps, / build .* --dry-run -q --json$/, { '<assetId>...': ids }));
    expect(plan.code, plan.stderr).toBe(0);
    expect((plan.json.items as { id: string; action: string }[]).map((item) => [item.id, item.action])).toEqual(
      assets.map((asset) => [asset.id, 'generate']),
    );
    const built = await run(line(steps, / build <assetId>\.\.\. -q --json$/, { '<assetId>...': ids }));
    expect(built.code, built.stderr).toBe(0);
    const items = built.json.items as { id: string; outcome: string; files: string[]; media: { path: string; width: number }[] }[];
    expect(items.map((item) => item.outcome)).toEqual(['built', 'built', 'built', 'built', 'built']);
    expect(items.find((item) => item.id === 'floor-moss')!.files).toEqual(['assets/tiles/floor-moss.png']);
    for (const item of items) {
      const asset = assets.find((entry) => entry.id === item.id)!;
      for (const file of item.files) {
        expect(asset.out.endsWith('/') ? file.startsWith(asset.out) : file === asset.out, `${item.id}: ${file}`).toBe(true);
        expect(fs.existsSync(inProject(file))).toBe(true);
      }
      expect(item.media.map((entry) => entry.path)).toEqual(item.files);
      for (const entry of item.media) expect(entry).toMatchObject({ format: 'png', width: 128, height: 128 });
    }
  });

  it("never pays for a video without the user's yes: the commands refuse without --yes, and the ledger shows no video", async () => {
    const steps = section('## 6.');
    // The skill asks the user before the command; an agent that skipped that (no --yes) is refused.
    expect(steps.indexOf('Go ahead?')).toBeLessThan(steps.indexOf('```sh'));
    const unconfirmed = line(steps, 'video create', { '<prompt>': 'torch flickering', '<folder>/<name>': 'assets/fx/torch' }).replace(
      ' --yes',
      '',
    );
    const refused = await run(unconfirmed);
    expect(refused.code).toBe(2);
    // The same for a build: the shape's video asset added, the skill's build line (which has no --yes).
    const manifestFile = inProject('assetgen.yaml');
    const document = YAML.parseDocument(fs.readFileSync(manifestFile, 'utf8'));
    document.addIn(['assets'], { id: 'torch', video: 'torch flickering on a dungeon wall', out: 'assets/fx/' });
    fs.writeFileSync(manifestFile, document.toString());
    const build = await run(line(section('## 8.'), / build <assetId>\.\.\. -q --json$/, { '<assetId>...': 'torch' }));
    expect(build.code).toBe(2);
    expect(build.stderr).toContain('180 credits');
    expect(await videoCharges()).toEqual([]);
  });

  it('used only agent ids that assetgen listed, and every command with -q --json', () => {
    expect(usedAgentIds.size).toBeGreaterThan(0);
    for (const id of usedAgentIds) expect(listedAgentIds).toContain(id);
    const generated = transcript.filter((args) => args[0] === 'generate');
    for (const args of generated) expect(listedAgentIds).toContain(args[args.indexOf('--agent') + 1]);
    for (const args of transcript) expect(args).toEqual(expect.arrayContaining(['-q', '--json']));
  });
});

describe('with only an API key (the usual set-up)', () => {
  it('gets no made-up id: exit 4 with what to do, as step 2 says; after one session list, the cached one', async () => {
    const bare = tempHome();
    try {
      const env = { ...bare.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
      const agents = line(section('## 2.'), 'agents -q --json', {});
      const args = argv(agents.slice(invocation.length + 1));
      const first = await runInProcess(args, { env, cwd: bare.cwd });
      expect(first.code).toBe(4);
      expect(first.stdout).toBe('');
      const error = JSON.parse(first.stderr.trim().split('\n').at(-1)!).error as { code: string; hint: string };
      expect(error.code).toBe('missing_credentials');
      expect(section('## 2.')).toContain('Exit 4 (`missing_credentials`)');
      // The command the skill tells the user to run is the one the error names.
      expect(error.hint).toContain('printf %s "$COOKIE" | assetgen auth login --session');
      expect(section('## 2.')).toContain(`printf %s "$COOKIE" | ${invocation} auth login --session`);
      const stored = await runInProcess(['auth', 'login', '--session'], { env, cwd: bare.cwd, input: mock.sessionCookie });
      expect(stored.code, stored.stderr).toBe(0);
      expect((await runInProcess(args, { env, cwd: bare.cwd })).code).toBe(0);
      // The session goes (it expired, say): the key alone now answers from the cached list.
      await runInProcess(['auth', 'logout'], { env, cwd: bare.cwd });
      const cached = await runInProcess(args, { env, cwd: bare.cwd });
      expect(cached.code, cached.stderr).toBe(0);
      expect(JSON.parse(cached.stdout)).toMatchObject({
        source: 'cache',
        agents: expect.arrayContaining([expect.objectContaining({ id: 'icon-forge' })]),
      });
    } finally {
      bare.remove();
    }
  });
});
