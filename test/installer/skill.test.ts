// The skill itself: valid per the reference validator, shipped = default rendering, and every
// command it teaches runs green against the bundled mock (in-process, through the real command table).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { renderSkill, SHIPPED_SKILL_DIR, shippedValues } from '../../src/installer/render.js';
import { runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const VALIDATOR = fileURLToPath(new URL('../../node_modules/.bin/skills-ref', import.meta.url));

function validate(dir: string): { status: number | null; output: string } {
  const result = spawnSync(VALIDATOR, ['validate', dir], { encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function writeRendering(command: string): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-skill-')), 'assetgen');
  for (const file of renderSkill({ command, version: '1.2.3', baseUrl: 'https://assets.example.com' })) {
    const target = path.join(dir, ...file.relative.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
  }
  return dir;
}

describe('the assetgen skill', () => {
  it('passes skills-ref validate as shipped and as rendered for a copy not on PATH', () => {
    expect(validate(SHIPPED_SKILL_DIR)).toMatchObject({ status: 0 });
    const rendered = writeRendering('/usr/local/bin/node /opt/assetgen/bin/assetgen.js');
    const result = validate(rendered);
    expect(result.output).toContain('Valid skill');
    expect(result.status).toBe(0);
    const text = fs.readFileSync(path.join(rendered, 'SKILL.md'), 'utf8');
    expect(text).toContain('/usr/local/bin/node /opt/assetgen/bin/assetgen.js generate');
    expect(text).toContain('/usr/local/bin/node /opt/assetgen/bin/assetgen.js auth login --base-url https://assets.example.com');
    expect(text).toContain('version: "1.2.3"');
    // Every mention of the CLI uses the installed invocation: no bare `assetgen <command>` is left.
    for (const file of renderSkill({ command: '/usr/local/bin/node /opt/assetgen/bin/assetgen.js', version: '1.2.3' })) {
      expect(file.content, file.relative).not.toMatch(/\{\{|`assetgen [a-z]/);
    }
    fs.rmSync(path.dirname(rendered), { recursive: true, force: true });
  });

  it('documents exactly the exit codes of src/exit-codes.ts', () => {
    const text = fs.readFileSync(path.join(SHIPPED_SKILL_DIR, 'SKILL.md'), 'utf8');
    const section = text.slice(text.indexOf('## Exit codes'));
    const documented = [...section.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    expect(documented.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });

  it('ships exactly the default rendering of the templates (run `npm run render-skill` after editing them)', () => {
    const shipped = fs
      .readdirSync(SHIPPED_SKILL_DIR, { recursive: true, encoding: 'utf8' })
      .filter((p) => fs.statSync(path.join(SHIPPED_SKILL_DIR, p)).isFile());
    const rendered = renderSkill(shippedValues());
    expect(shipped.map((p) => p.split(path.sep).join('/')).sort()).toEqual(rendered.map((f) => f.relative).sort());
    for (const file of rendered) expect(fs.readFileSync(path.join(SHIPPED_SKILL_DIR, file.relative), 'utf8')).toBe(file.content);
  });

  it('keeps SKILL.md within the spec limits', () => {
    const text = fs.readFileSync(path.join(SHIPPED_SKILL_DIR, 'SKILL.md'), 'utf8');
    const description = /^description: (.*)$/m.exec(text)?.[1] ?? '';
    expect(description.length).toBeGreaterThan(50);
    expect(description.length).toBeLessThanOrEqual(1024);
    for (const word of ['game asset', 'sprite', 'icon', 'texture', 'tileset', 'video']) expect(description.toLowerCase()).toContain(word);
    expect(text.split('\n').length).toBeLessThan(500);
  });
});

// Every `assetgen …` line of the skill's code blocks and command tables, with placeholders filled,
// runs against one mock so later steps can use ids from earlier ones.
describe('every command the skill teaches', () => {
  let mock: MockHandle;
  let home: ReturnType<typeof tempHome>;
  beforeAll(async () => {
    mock = await startMock({ credits: 100_000 });
    await mock.config({ videoPollAfterMs: 10, streamStepMs: 5 });
    home = tempHome();
  });
  afterAll(async () => {
    home.remove();
    await mock.close();
  });

  function commandsIn(markdown: string): string[] {
    const lines: string[] = [];
    for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) lines.push(...block[1]!.split('\n'));
    for (const cell of markdown.matchAll(/`(assetgen [^`]+)`/g)) lines.push(cell[1]!);
    // `assetgen auth login` is for the user to run in their own terminal (it asks for the key).
    return [
      ...new Set(
        lines
          .map((line) => line.trim())
          .filter((line) => line.startsWith('assetgen ') && !line.includes('<command>') && !line.startsWith('assetgen auth login')),
      ),
    ];
  }

  const skillFiles = () =>
    ['SKILL.md', 'references/commands.md', 'references/prompting.md'].map((f) => fs.readFileSync(path.join(SHIPPED_SKILL_DIR, f), 'utf8'));

  /** Runs `task` over `items`, at most `limit` at a time; results in the order of `items`. */
  async function pool<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
    const results: R[] = new Array<R>(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index]!, index);
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
    return results;
  }

  /** Splits a shell line into arguments (double quotes only, as the skill uses). */
  function argv(line: string): string[] {
    return [...line.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replace(/"/g, ''));
  }

  it('tells the agent to pass -q with --json, and does so in every command it reads JSON from', () => {
    const [skill, ...references] = skillFiles();
    expect(skill).toContain('Always pass `-q --json`');
    const readsJson = [skill!, ...references].flatMap(commandsIn).filter((line) => line.includes('--json'));
    expect(readsJson.length).toBeGreaterThanOrEqual(15);
    // `--stream` is there for the progress it shows on stderr.
    for (const line of readsJson) expect(line.split(' ').includes('-q') || line.includes('--stream'), line).toBe(true);
  });

  it('runs each example green against the mock', async () => {
    const examples = skillFiles().flatMap(commandsIn);
    expect(examples.length).toBeGreaterThanOrEqual(15);
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_SESSION: mock.sessionCookie };
    const ids: Record<string, string> = {};
    const run = async (args: string[]) => runInProcess(args, { env, cwd: home.cwd, timeoutMs: 20_000 });
    // Ids for the placeholders, made the way an agent would.
    ids.runId = JSON.parse((await run(['workflows', 'run', 'wf_tileset', '--no-wait', '--json'])).stdout).id;
    ids.videoId = JSON.parse((await run(['video', 'create', 'loop', '--yes', '--no-wait', '--json'])).stdout).id;
    // The project's manifest, with the asset an agent would have added to it (after `init`, which
    // writes the starter and refuses to replace one). Its output is not where the `generate`
    // examples save (assets/crate.png): a build leaves a file it did not make alone.
    const manifest = path.join(home.cwd, 'assetgen.yaml');
    const writeManifest = () =>
      fs.writeFileSync(
        manifest,
        'assets:\n  - id: crate\n    prompt: a wooden crate\n    agent: sprite-artist\n    variants: 2\n    out: assets/props/crate.png\n',
      );
    writeManifest();
    const fill: [RegExp, string][] = [
      [/<node>="<prompt>"/g, 'theme="frozen cavern"'],
      [/<folder>\/<name>\.png/g, 'assets/crate.png'],
      [/<folder>\/<name>/g, 'assets/clip'],
      [/<assetId>\.\.\./g, 'crate'],
      [/"<prompt>"/g, '"a wooden crate, 32x32 pixel art"'],
      [/<agentId>/g, 'sprite-artist'],
      [/<workflowId>/g, 'wf_tileset'],
      [/<folder>\//g, 'assets/'],
      [/<runId>/g, ids.runId],
      [/<videoId>/g, ids.videoId],
      [/<id>/g, ids.videoId],
      [/<assetId>/g, 'crate'],
      [/<k>/g, '2'],
      [/<engine>/g, 'phaser'],
    ];
    for (const example of examples) {
      let line = example;
      for (const [pattern, value] of fill) line = line.replace(pattern, value);
      expect(line, `unfilled placeholder in: ${example}`).not.toMatch(/<[a-zA-Z]+>/);
      // Examples that save may meet a file an earlier example saved under the same id.
      const args = argv(line).slice(1);
      if (args.includes('-o')) args.push('--force');
      if (args[0] === 'init') fs.rmSync(manifest);
      const result = await run(args);
      if (args[0] === 'init') writeManifest();
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      if (args.includes('--json')) expect(() => JSON.parse(result.stdout), line).not.toThrow();
    }
  });

  it('runs each example that needs no earlier step with --mock and no setup at all', async () => {
    const bare = tempHome();
    try {
      // `auth status` reports the local setup, not the service: with none it exits 4 (next test).
      const examples = skillFiles()
        .flatMap(commandsIn)
        .filter((line) => !/<(runId|videoId|id|assetId)>/.test(line) && !line.startsWith('assetgen auth status'));
      expect(examples.length).toBeGreaterThanOrEqual(10);
      // Independent of each other, so four at a time (most of each is the mock's pacing), each in a
      // folder of its own so that no two save into the same place.
      const results = await pool(examples, 4, async (example, index) => {
        const line = example
          .replace(/<node>="<prompt>"/g, 'theme="frozen cavern"')
          .replace(/<folder>\/<name>\.png/g, 'assets/crate.png')
          .replace(/<folder>\/<name>/g, 'assets/clip')
          .replace(/"<prompt>"/g, '"a wooden crate"')
          .replace(/<agentId>/g, 'icon-forge')
          .replace(/<workflowId>/g, 'wf_tileset')
          .replace(/<folder>\//g, 'assets/')
          .replace(/<engine>/g, 'phaser');
        const args = ['--mock', ...argv(line).slice(1)];
        if (args.includes('-o')) args.push('--force');
        const cwd = path.join(bare.cwd, `example-${index}`);
        fs.mkdirSync(cwd);
        return { line, result: await runInProcess(args, { env: bare.env, cwd, timeoutMs: 20_000 }) };
      });
      for (const { line, result } of results) {
        expect(result.code, `${line}\n${result.stderr}`).toBe(0);
        expect(() => JSON.parse(result.stdout), line).not.toThrow();
      }
    } finally {
      bare.remove();
    }
  });

  it('exits as documented when access is not set up: 4, empty stdout, a JSON error last on stderr', async () => {
    const bare = tempHome();
    try {
      const text = skillFiles()[0]!;
      expect(text).toMatch(/auth status -q --json\n```\n[\s\S]*?- Exit 4: not set up/);
      const status = await runInProcess(['auth', 'status', '-q', '--json'], { env: bare.env, cwd: bare.cwd });
      expect(status.code).toBe(EXIT.auth);
      expect(JSON.parse(status.stdout)).toMatchObject({ authenticated: false });
      const generate = await runInProcess(['generate', 'a crate', '--agent', 'sprite-artist', '-o', 'assets/', '-q', '--json'], {
        env: { ...bare.env, ASSETGEN_BASE_URL: 'http://127.0.0.1:9' },
        cwd: bare.cwd,
      });
      expect(generate.code).toBe(EXIT.auth);
      expect(generate.stdout).toBe('');
      const last = generate.stderr.trim().split('\n').at(-1)!;
      expect(JSON.parse(last)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String), exitCode: 4 } });
    } finally {
      bare.remove();
    }
  });
});

describe('docs/skills.md', () => {
  it('documents every agent of the table', async () => {
    const { CODING_AGENTS } = await import('../../src/installer/agents.js');
    type Where = (typeof CODING_AGENTS)[number]['userDir'];
    // How the page spells a user-scope path: `~` for home, the variable for an overridable root.
    const roots: Record<Where['root'], string> = {
      home: '~',
      xdgConfig: '$XDG_CONFIG_HOME',
      claudeHome: '~/.claude',
      codexHome: '~/.codex',
    };
    const shown = (where: Where): string => (where.path ? `${roots[where.root]}/${where.path}` : roots[where.root]);
    const doc = fs.readFileSync(new URL('../../docs/skills.md', import.meta.url), 'utf8');
    for (const agent of CODING_AGENTS) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${agent.id}\` |`));
      expect(row, agent.id).toBeTruthy();
      const cells = row!.split(' | ');
      expect(cells[1]).toBe(agent.name);
      expect(cells[2]).toBe(`\`${agent.projectDir}\``);
      expect(cells[3]!.startsWith(`\`${shown(agent.userDir)}\``), `${agent.id} user dir: ${cells[3]}`).toBe(true);
      expect(cells[4], `${agent.id} detect`).toBe(agent.detect ? `\`${shown(agent.detect)}\`` : 'never (always offered)');
      for (const dir of agent.alsoReads.project) expect(cells[5]).toContain(`\`${dir}\``);
      for (const dir of agent.alsoReads.user) expect(cells[5]).toContain(`\`${shown(dir)}\``);
      expect(cells[6], `${agent.id} source`).toContain(`](${agent.skillsSource}) |`);
      expect(agent.skillsSource).toMatch(/^https:\/\//);
    }
  });
});
