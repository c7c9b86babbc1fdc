// The skill installer: every agent and scope, detection, dry run, reinstall, update, uninstall,
// the non-TTY error and the secret scan; the CLI is spawned for real where a user would run it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS, detectAgents, findAgent, type Scope } from '../../src/installer/agents.js';
import { applyPlan, planInstall, resolveTargets, safeJoin } from '../../src/installer/install.js';
import { readManifest, writeManifest } from '../../src/installer/manifest.js';
import { renderSkill, sha256 } from '../../src/installer/render.js';
import { runCli, tempHome } from '../e2e/harness.js';

// Where each agent reads skills (shared/agents.tsv), stated independently of src/installer.
const EXPECTED: Record<string, { project: string; user: string }> = {
  'claude-code': { project: '.claude/skills', user: '.claude/skills' },
  codex: { project: '.agents/skills', user: '.codex/skills' },
  cursor: { project: '.agents/skills', user: '.cursor/skills' },
  'github-copilot': { project: '.github/skills', user: '.copilot/skills' },
  'gemini-cli': { project: '.gemini/skills', user: '.gemini/skills' },
  opencode: { project: '.opencode/skills', user: '.config/opencode/skills' },
  windsurf: { project: '.windsurf/skills', user: '.codeium/windsurf/skills' },
  goose: { project: '.goose/skills', user: '.config/goose/skills' },
  amp: { project: '.agents/skills', user: '.config/agents/skills' },
  cline: { project: '.cline/skills', user: '.cline/skills' },
  roo: { project: '.roo/skills', user: '.roo/skills' },
  kiro: { project: '.kiro/skills', user: '.kiro/skills' },
  continue: { project: '.continue/skills', user: '.continue/skills' },
  zed: { project: '.agents/skills', user: '.agents/skills' },
  universal: { project: '.agents/skills', user: '.agents/skills' },
};

let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = tempHome();
  // tempHome points XDG_CONFIG_HOME at <home>/.config, as the default would be.
  env = { ...home.env };
});
afterEach(() => home.remove());

const files = () => renderSkill({ command: 'assetgen', version: '9.9.9' });
const install = (ids: string[], scope: Scope, force = false) => {
  const plan = planInstall(resolveTargets(ids.map((id) => findAgent(id)!), scope, home.cwd, env), files(), readManifest(env), force);
  applyPlan(plan, env, '9.9.9');
  return plan;
};
const listTree = (root: string): string[] =>
  fs.existsSync(root) ? fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).map((p) => p.split(path.sep).join('/')).sort() : [];

describe('the agent table', () => {
  it('covers every agent of agents.tsv', () => {
    expect(AGENTS.map((agent) => agent.id).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const agent of Object.keys(EXPECTED)) {
    for (const scope of ['project', 'user'] as const) {
      it(`installs for ${agent} in ${scope} scope where the agent reads skills`, () => {
        install([agent], scope);
        const base = scope === 'project' ? home.cwd : home.home;
        const skill = path.join(base, EXPECTED[agent]![scope], 'assetgen', 'SKILL.md');
        expect(fs.readFileSync(skill, 'utf8')).toMatch(/^---\nname: assetgen\n/);
        expect(fs.existsSync(path.join(path.dirname(skill), 'references', 'commands.md'))).toBe(true);
      });
    }
  }

  it('honours CLAUDE_CONFIG_DIR, CODEX_HOME and XDG_CONFIG_HOME', () => {
    env = { ...env, CLAUDE_CONFIG_DIR: path.join(home.home, 'claude-cfg'), CODEX_HOME: path.join(home.home, 'codex-home'), XDG_CONFIG_HOME: path.join(home.home, 'xdg') };
    install(['claude-code', 'codex', 'opencode', 'goose'], 'user');
    for (const dir of ['claude-cfg/skills', 'codex-home/skills', 'xdg/opencode/skills', 'xdg/goose/skills']) {
      expect(fs.existsSync(path.join(home.home, dir, 'assetgen', 'SKILL.md'))).toBe(true);
    }
  });

  it('writes one copy for agents that share a directory, and Claude Code always gets .claude/skills', () => {
    const plan = install(['codex', 'cursor', 'universal', 'claude-code'], 'project');
    const dirs = new Set(plan.map((item) => item.target.skillsDir));
    expect([...dirs].map((dir) => path.relative(home.cwd, dir)).sort()).toEqual(['.agents/skills', '.claude/skills']);
    const manifest = readManifest(env);
    const shared = manifest.files.find((entry) => entry.path.endsWith(path.join('.agents', 'skills', 'assetgen', 'SKILL.md')));
    expect(shared?.agents.sort()).toEqual(['codex', 'cursor', 'universal']);
  });

  it('detects agents by their configuration directories', () => {
    fs.mkdirSync(path.join(home.home, '.claude'));
    fs.mkdirSync(path.join(home.home, '.config', 'opencode'), { recursive: true });
    expect(detectAgents(env).map((agent) => agent.id).sort()).toEqual(['claude-code', 'opencode']);
    fs.mkdirSync(path.join(home.home, 'cc'));
    expect(detectAgents({ ...env, CLAUDE_CONFIG_DIR: path.join(home.home, 'nowhere') }).map((a) => a.id)).toEqual(['opencode']);
  });

  it('refuses template paths that would escape the skill folder', () => {
    expect(() => safeJoin('/tmp/skills/assetgen', '../../etc/passwd')).toThrow(/outside/);
    expect(() => safeJoin('/tmp/skills/assetgen', '/etc/passwd')).toThrow(/outside/);
    expect(safeJoin('/tmp/skills/assetgen', 'references/a.md')).toBe(path.resolve('/tmp/skills/assetgen/references/a.md'));
  });
});

describe('assetgen install (spawned)', () => {
  const cli = (args: string[], input?: string) => runCli(args, { env, cwd: home.cwd, input });

  it('exits 2 without a terminal and without --agent/--all-detected, writing nothing', async () => {
    fs.mkdirSync(path.join(home.home, '.claude'));
    for (const args of [['install'], ['skills', 'install', '--yes'], ['install', '--scope', 'user']]) {
      const result = await cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--agent');
      expect(result.stderr).toContain('--all-detected');
    }
    expect(listTree(home.cwd)).toEqual([]);
    expect(fs.existsSync(path.join(home.home, '.claude', 'skills'))).toBe(false);
  });

  it('plans without writing on --dry-run, installs, and reinstalls as a no-op', async () => {
    const dry = await cli(['install', '--agent', 'claude-code', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout) as { files: { path: string; action: string }[] };
    expect(planned.files.map((f) => f.action)).toEqual(['create', 'create', 'create']);
    expect(listTree(home.cwd)).toEqual([]);

    const real = await cli(['install', '--agent', 'claude-code']);
    expect(real.code).toBe(0);
    expect(real.stdout.trim().split('\n')).toEqual(planned.files.map((f) => f.path));

    const again = await cli(['install', '--agent', 'claude-code']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing to do');
    expect(again.stdout).toBe('');
  });

  it('installs for every detected agent with --all-detected', async () => {
    fs.mkdirSync(path.join(home.home, '.gemini'));
    fs.mkdirSync(path.join(home.home, '.codex'));
    const result = await cli(['install', '--all-detected', '--scope', 'user', '--json']);
    expect(result.code).toBe(0);
    expect(fs.existsSync(path.join(home.home, '.gemini', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(home.home, '.codex', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
  });

  it('update replaces unedited files and keeps edited ones (new version beside) unless --force', async () => {
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'cline'])).code).toBe(0);
    // Pretend an older assetgen wrote these files: older content, recorded in the manifest.
    const manifest = readManifest(env);
    for (const entry of manifest.files) {
      const old = `${fs.readFileSync(entry.path, 'utf8')}\nold version\n`;
      fs.writeFileSync(entry.path, old);
      entry.sha256 = sha256(old);
      entry.version = '0.0.1';
    }
    writeManifest(env, manifest);
    const claudeSkill = path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md');
    const clineSkill = path.join(home.cwd, '.cline', 'skills', 'assetgen', 'SKILL.md');
    fs.appendFileSync(claudeSkill, 'my own notes\n');

    const updated = await cli(['skills', 'update']);
    expect(updated.code).toBe(0);
    expect(fs.readFileSync(clineSkill, 'utf8')).not.toContain('old version');
    expect(fs.readFileSync(claudeSkill, 'utf8')).toContain('my own notes');
    expect(fs.readFileSync(`${claudeSkill}.new`, 'utf8')).not.toContain('old version');
    expect(updated.stderr).toContain(`${claudeSkill}.new`);

    const forced = await cli(['skills', 'update', '--force']);
    expect(forced.code).toBe(0);
    expect(fs.readFileSync(claudeSkill, 'utf8')).not.toContain('my own notes');
    const listed = JSON.parse((await cli(['skills', 'list', '--json'])).stdout) as { installed: { state: string }[] };
    expect(listed.installed.filter((f) => f.state !== 'pending-update').every((f) => f.state === 'installed')).toBe(true);
  });

  it('uninstall removes exactly what it wrote and keeps everything of the user', async () => {
    fs.mkdirSync(path.join(home.cwd, '.claude', 'skills', 'my-skill'), { recursive: true });
    fs.writeFileSync(path.join(home.cwd, '.claude', 'skills', 'my-skill', 'SKILL.md'), 'mine');
    fs.writeFileSync(path.join(home.cwd, '.claude', 'settings.json'), '{}');
    const before = listTree(home.cwd);
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'github-copilot'])).code).toBe(0);
    fs.writeFileSync(path.join(home.cwd, '.github', 'skills', 'assetgen', 'notes.txt'), 'user file inside our folder');

    const removed = await cli(['skills', 'uninstall']);
    expect(removed.code).toBe(0);
    // Ours are gone; the user's file keeps our folder (and its parents) alive, nothing else.
    expect(listTree(home.cwd)).toEqual([...before, '.github', '.github/skills', '.github/skills/assetgen', '.github/skills/assetgen/notes.txt'].sort());
    expect(readManifest(env).files).toEqual([]);

    fs.rmSync(path.join(home.cwd, '.github', 'skills', 'assetgen', 'notes.txt'));
    expect((await cli(['install', '--agent', 'github-copilot'])).code).toBe(0);
    expect((await cli(['skills', 'uninstall'])).code).toBe(0);
    expect(listTree(home.cwd)).toEqual(before);
  });

  it('uninstall keeps a file the user edited unless --force', async () => {
    expect((await cli(['install', '--agent', 'kiro'])).code).toBe(0);
    const skill = path.join(home.cwd, '.kiro', 'skills', 'assetgen', 'SKILL.md');
    fs.appendFileSync(skill, 'edited');
    expect((await cli(['skills', 'uninstall'])).code).toBe(0);
    expect(fs.existsSync(skill)).toBe(true);
    expect((await cli(['skills', 'uninstall', '--force'])).code).toBe(0);
    expect(fs.existsSync(path.join(home.cwd, '.kiro'))).toBe(false);
  });

  it('never writes a secret into a skill file', async () => {
    const key = 'agk_0123456789abcdef0123456789abcdef01234567';
    env = { ...env, ASSETGEN_API_KEY: key, ASSETGEN_SESSION: 'ag_session=s3cr3t-cookie-value', ASSETGEN_BASE_URL: 'https://user:hunter2@assets.example.com/api?token=abc' };
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'codex', '--scope', 'user'])).code).toBe(0);
    const written = readManifest(env).files.map((entry) => entry.path);
    expect(written.length).toBeGreaterThan(0);
    for (const file of written) {
      const text = fs.readFileSync(file, 'utf8');
      for (const secret of [key, 's3cr3t-cookie-value', 'hunter2', 'token=abc']) expect(text).not.toContain(secret);
    }
    expect(fs.readFileSync(written[0]!, 'utf8')).toContain('https://assets.example.com/api');
  });
});
