// The skill installer: every agent and scope, detection, dry run, reinstall, update, uninstall,
// the non-TTY error and the secret scan; commands run in-process, and spawned where a user would run them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODING_AGENTS, detectAgents, findAgent, joinInside, skillsDir, userPath, type Scope } from '../../src/installer/agents.js';
import { applyPlan, planInstall } from '../../src/installer/install.js';
import { installedDirs, resolveTargets } from '../../src/installer/targets.js';
import { manifestPath, readManifest, writeManifest } from '../../src/installer/manifest.js';
import { InstallerError } from '../../src/installer/errors.js';
import { OWN_SCRIPT, renderSkill, resolveInvocation, sha256, shellCommand } from '../../src/installer/render.js';
import { setPlatformForTesting } from '../../src/platform.js';
import { jsonError, runCli, runInProcess, tempHome } from '../support/cli.js';

// Where each agent reads skills (from the sources each record of src/installer/agents.ts names), stated
// independently of src/installer.
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
  const manifest = readManifest(env);
  const targets = resolveTargets(
    ids.map((id) => findAgent(id)!),
    scope,
    home.cwd,
    env,
    installedDirs(manifest, scope, home.cwd),
  );
  const plan = planInstall(targets, files(), manifest, force);
  applyPlan(plan, env, '9.9.9');
  return plan;
};
const listTree = (root: string): string[] =>
  fs.existsSync(root)
    ? fs
        .readdirSync(root, { recursive: true, encoding: 'utf8' })
        .map((p) => p.split(path.sep).join('/'))
        .sort()
    : [];

describe('the agent table', () => {
  it('covers every agent stated here', () => {
    expect(CODING_AGENTS.map((agent) => agent.id).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const agent of Object.keys(EXPECTED)) {
    for (const scope of ['project', 'user'] as const) {
      it(`installs for ${agent} in ${scope} scope where the agent reads skills`, () => {
        install([agent], scope);
        const base = scope === 'project' ? home.cwd : home.home;
        const skill = path.join(base, EXPECTED[agent]![scope], 'assetgen', 'SKILL.md');
        expect(fs.readFileSync(skill, 'utf8')).toMatch(/^---\nname: assetgen\n/);
        expect(fs.existsSync(path.join(path.dirname(skill), 'references', 'commands.md'))).toBe(true);
        // The manifest records each file with its hash, version, agent and scope.
        const entries = readManifest(env).files;
        expect(entries.map((entry) => path.relative(path.dirname(skill), entry.path).split(path.sep).join('/')).sort()).toEqual(
          files()
            .map((f) => f.relative)
            .sort(),
        );
        for (const entry of entries) {
          expect(entry).toMatchObject({ sha256: sha256(fs.readFileSync(entry.path)), version: '9.9.9', agents: [agent], scope });
        }
        // Copies, never links; nothing else (no temp files) beside them.
        expect(fs.lstatSync(skill).isSymbolicLink()).toBe(false);
        expect(fs.readdirSync(path.dirname(skill)).sort()).toEqual(['SKILL.md', 'references']);
      });
    }
  }

  it('honours CLAUDE_CONFIG_DIR, CODEX_HOME and XDG_CONFIG_HOME', () => {
    env = {
      ...env,
      CLAUDE_CONFIG_DIR: path.join(home.home, 'claude-cfg'),
      CODEX_HOME: path.join(home.home, 'codex-home'),
      XDG_CONFIG_HOME: path.join(home.home, 'xdg'),
    };
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
    expect(
      detectAgents(env)
        .map((agent) => agent.id)
        .sort(),
    ).toEqual(['claude-code', 'opencode']);
    fs.mkdirSync(path.join(home.home, 'cc'));
    expect(detectAgents({ ...env, CLAUDE_CONFIG_DIR: path.join(home.home, 'nowhere') }).map((a) => a.id)).toEqual(['opencode']);
  });

  it('refuses paths from a template or the table that would escape their root', () => {
    const root = path.resolve('/tmp/skills/assetgen');
    for (const bad of ['../../etc/passwd', '/etc/passwd', 'a/../../b', 'C:/Windows', 'a\\..\\..\\b']) {
      expect(() => joinInside(root, bad), bad).toThrow(/outside/);
      expect(() => joinInside(root, bad), bad).toThrow(InstallerError);
    }
    expect(joinInside(root, 'references/a.md')).toBe(path.join(root, 'references', 'a.md'));
    // Every path of the table stays inside its root.
    for (const agent of CODING_AGENTS) {
      for (const scope of ['project', 'user'] as const) {
        const dir = skillsDir(agent, scope, home.cwd, env);
        const base = scope === 'project' ? home.cwd : home.home;
        expect(path.relative(base, dir).startsWith('..'), `${agent.id} ${scope}`).toBe(false);
      }
      if (agent.detect) expect(path.relative(home.home, userPath(agent.detect, env)).startsWith('..')).toBe(false);
    }
  });

  it('lets an agent use a copy in a directory it also reads instead of listing the skill twice', () => {
    // Cursor and Copilot read .claude/skills too; Claude Code reads nothing else.
    const plan = install(['claude-code', 'cursor', 'github-copilot'], 'project');
    const targets = [...new Set(plan.map((item) => item.target))];
    expect(targets.map((t) => [path.relative(home.cwd, t.skillsDir), t.agents.map((a) => a.id)])).toEqual([
      [path.join('.claude', 'skills'), ['claude-code', 'cursor', 'github-copilot']],
    ]);
    // Codex reads ~/.agents/skills in user scope: with the shared location chosen, one copy serves both.
    const user = install(['codex', 'universal'], 'user');
    expect([...new Set(user.map((item) => path.relative(home.home, item.target.skillsDir)))]).toEqual([path.join('.agents', 'skills')]);
    // Installing Cursor later reuses the existing .claude/skills copy: nothing written, agent recorded.
    const later = install(['cursor'], 'project');
    expect(later.every((item) => item.action === 'unchanged' && item.writeTo === null)).toBe(true);
    expect(fs.existsSync(path.join(home.cwd, '.agents'))).toBe(false);
  });

  it('refuses to write through a symbolic link inside a skills directory', () => {
    const elsewhere = path.join(home.home, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(home.cwd, '.kiro', 'skills'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(home.cwd, '.kiro', 'skills', 'assetgen'), 'dir');
    expect(() => install(['kiro'], 'project')).toThrow(/symbolic link/);
    expect(() => install(['kiro'], 'project')).toThrow(InstallerError);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('refuses a project install whose skills folder is a link that leads outside the project', () => {
    const elsewhere = path.join(home.home, 'shared-skills');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(home.cwd, '.claude'));
    fs.symlinkSync(elsewhere, path.join(home.cwd, '.claude', 'skills'), 'dir');
    expect(() => install(['claude-code'], 'project')).toThrow(/leads outside the project/);
    expect(() => install(['claude-code'], 'project')).toThrow(InstallerError);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    // A link that stays inside the project is the user's own layout: fine.
    fs.rmSync(path.join(home.cwd, '.claude', 'skills'));
    fs.mkdirSync(path.join(home.cwd, 'agent-skills'));
    fs.symlinkSync(path.join(home.cwd, 'agent-skills'), path.join(home.cwd, '.claude', 'skills'), 'dir');
    expect(install(['claude-code'], 'project').every((item) => item.action === 'create')).toBe(true);
  });

  it('renders `assetgen` only when it is on PATH for good, else this copy by absolute paths (never npx)', () => {
    const bin = (dir: string) => {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, process.platform === 'win32' ? 'assetgen.cmd' : 'assetgen'), '', { mode: 0o755 });
      return dir;
    };
    const npxCache = bin(path.join(home.home, '.npm', '_npx', 'abc123', 'node_modules', '.bin'));
    const local = bin(path.join(home.cwd, 'node_modules', '.bin'));
    const global = bin(path.join(home.home, 'global-bin'));
    const here = `${process.execPath} ${OWN_SCRIPT}`;
    expect(shellCommand(resolveInvocation({ PATH: [npxCache, local].join(path.delimiter) }))).toBe(here);
    expect(shellCommand(resolveInvocation({ PATH: [npxCache, global].join(path.delimiter) }))).toBe('assetgen');
    expect(shellCommand(resolveInvocation({ PATH: '' }))).toBe(here);
  });

  it('quotes a path with spaces for the shell: single quotes on POSIX, double quotes on Windows', () => {
    const invocation = { ...resolveInvocation({ PATH: '' }, "/opt/my tools/it's/bin/assetgen.js"), node: '/usr/bin/node' };
    expect(shellCommand(invocation)).toBe(`/usr/bin/node '/opt/my tools/it'\\''s/bin/assetgen.js'`);
    setPlatformForTesting('win32');
    try {
      const windows = { onPath: false, node: 'C:\\Program Files\\nodejs\\node.exe', script: 'C:\\Users\\me\\assetgen\\bin\\assetgen.js' };
      expect(shellCommand(windows)).toBe('"C:\\Program Files\\nodejs\\node.exe" "C:\\Users\\me\\assetgen\\bin\\assetgen.js"');
    } finally {
      setPlatformForTesting(undefined);
    }
  });
});

describe('assetgen install (the command)', () => {
  // In-process through the real command table; the first test spawns the binary for real.
  const cli = (args: string[], input?: string) => runInProcess(args, { env, cwd: home.cwd, input });

  it('exits 2 without a terminal and without --agent/--all-detected, writing nothing (spawned)', async () => {
    fs.mkdirSync(path.join(home.home, '.claude'));
    const runs = [['install'], ['skills', 'install', '--yes'], ['install', '--scope', 'user']];
    // They write nothing, so they may run side by side.
    for (const result of await Promise.all(runs.map((args) => runCli(args, { env, cwd: home.cwd })))) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--agent');
      expect(result.stderr).toContain('--all-detected');
    }
    expect(listTree(home.cwd)).toEqual([]);
    expect(fs.existsSync(path.join(home.home, '.claude', 'skills'))).toBe(false);
  });

  it('installs and uninstalls as a real process (spawned)', async () => {
    const installed = await runCli(['install', '--agent', 'claude-code'], { env, cwd: home.cwd });
    expect(installed.code, installed.stderr).toBe(0);
    const skill = path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md');
    expect(installed.stdout.trim().split('\n')).toContain(skill);
    expect(fs.readFileSync(skill, 'utf8')).toMatch(/^---\nname: assetgen\n/);
    const removed = await runCli(['skills', 'uninstall'], { env, cwd: home.cwd });
    expect(removed.code, removed.stderr).toBe(0);
    expect(listTree(home.cwd)).toEqual([]);
    expect(readManifest(env)).toMatchObject({ files: [], createdDirs: [] });
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
    // Nothing configured yet: the installer names what is missing (it never asks without a terminal).
    expect(real.stderr).toMatch(/Not configured yet: the service URL .* and credentials/);
    expect(real.stderr).toContain('assetgen auth login');
    const keyOnly = await runInProcess(['install', '--agent', 'claude-code', '--dry-run'], {
      env: { ...env, ASSETGEN_API_KEY: 'agk_0000000000000000000000000000000000000000' },
      cwd: home.cwd,
    });
    expect(keyOnly.stderr).toMatch(/Not configured yet: the service URL \(--base-url or ASSETGEN_BASE_URL\)\./);
    const configured = await runInProcess(['install', '--agent', 'claude-code', '--dry-run'], {
      env: { ...env, ASSETGEN_API_KEY: 'agk_0000000000000000000000000000000000000000', ASSETGEN_BASE_URL: 'https://assets.example.com' },
      cwd: home.cwd,
    });
    expect(configured.stderr).not.toContain('Not configured');

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
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'roo'])).code).toBe(0);
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
    const rooSkill = path.join(home.cwd, '.roo', 'skills', 'assetgen', 'SKILL.md');
    fs.appendFileSync(claudeSkill, 'my own notes\n');

    const updated = await cli(['skills', 'update']);
    expect(updated.code).toBe(0);
    expect(fs.readFileSync(rooSkill, 'utf8')).not.toContain('old version');
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
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'windsurf'])).code).toBe(0);
    fs.writeFileSync(path.join(home.cwd, '.windsurf', 'skills', 'assetgen', 'notes.txt'), 'user file inside our folder');

    const removed = await cli(['skills', 'uninstall']);
    expect(removed.code).toBe(0);
    // Ours are gone; the user's file keeps our folder (and its parents) alive, nothing else.
    expect(listTree(home.cwd)).toEqual(
      [...before, '.windsurf', '.windsurf/skills', '.windsurf/skills/assetgen', '.windsurf/skills/assetgen/notes.txt'].sort(),
    );
    expect(readManifest(env).files).toEqual([]);

    fs.rmSync(path.join(home.cwd, '.windsurf', 'skills', 'assetgen', 'notes.txt'));
    expect((await cli(['install', '--agent', 'windsurf'])).code).toBe(0);
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

  it('uninstall --force never deletes through a folder swapped for a link', async () => {
    expect((await cli(['install', '--agent', 'kiro'])).code).toBe(0);
    const ours = path.join(home.cwd, '.kiro', 'skills', 'assetgen');
    const outside = path.join(home.home, 'outside', 'assetgen');
    fs.mkdirSync(path.dirname(outside));
    fs.cpSync(ours, outside, { recursive: true });
    const copies = listTree(outside);
    fs.rmSync(ours, { recursive: true });
    fs.symlinkSync(outside, ours);
    const result = await cli(['skills', 'uninstall', '--force']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/Not uninstalling: .*SKILL\.md leads outside .* through the symbolic link .kiro\/skills\/assetgen/);
    expect(listTree(outside)).toEqual(copies);
    expect(copies.length).toBeGreaterThan(0);
  });

  it('never writes a secret into a skill file', async () => {
    const key = 'agk_0123456789abcdef0123456789abcdef01234567';
    env = {
      ...env,
      ASSETGEN_API_KEY: key,
      ASSETGEN_SESSION: 'ag_session=s3cr3t-cookie-value',
      ASSETGEN_BASE_URL: 'https://user:hunter2@assets.example.com/api?token=abc',
    };
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'codex', '--scope', 'user'])).code).toBe(0);
    const written = readManifest(env).files.map((entry) => entry.path);
    expect(written.length).toBeGreaterThan(0);
    for (const file of written) {
      const text = fs.readFileSync(file, 'utf8');
      for (const secret of [key, 's3cr3t-cookie-value', 'hunter2', 'token=abc']) expect(text).not.toContain(secret);
    }
    expect(fs.readFileSync(written[0]!, 'utf8')).toContain('https://assets.example.com/api');
  });

  it('update keeps a pending .new as it is, and --force resolves it and removes the obsolete .new', async () => {
    expect((await cli(['install', '--agent', 'continue'])).code).toBe(0);
    const skill = path.join(home.cwd, '.continue', 'skills', 'assetgen', 'SKILL.md');
    const manifest = readManifest(env);
    const entry = manifest.files.find((e) => e.path === skill)!;
    const old = `${fs.readFileSync(skill, 'utf8')}\nold version\n`;
    entry.sha256 = sha256(old);
    writeManifest(env, manifest);
    fs.writeFileSync(skill, `${old}MY-OWN-EDIT\n`);

    const first = await cli(['skills', 'update', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ changed: true });
    expect(fs.existsSync(`${skill}.new`)).toBe(true);
    // Nothing new since: a second update writes nothing and says the new version is waiting.
    const second = await cli(['skills', 'update', '--json']);
    expect(second.code).toBe(0);
    const doc = JSON.parse(second.stdout) as { changed: boolean; files: { path: string; action: string }[] };
    expect(doc.changed).toBe(false);
    expect(doc.files.find((f) => f.path === skill)?.action).toBe('pending');
    expect(second.stderr).toContain(`${skill}.new`);

    const forced = await cli(['skills', 'update', '--force']);
    expect(forced.code).toBe(0);
    expect(fs.readFileSync(skill, 'utf8')).not.toContain('MY-OWN-EDIT');
    expect(fs.existsSync(`${skill}.new`)).toBe(false);
    expect(readManifest(env).files.some((e) => e.pending)).toBe(false);
  });

  it('update does not recreate a copy whose folder is gone', async () => {
    expect((await cli(['install', '--agent', 'roo', '--agent', 'kiro'])).code).toBe(0);
    fs.rmSync(path.join(home.cwd, '.roo'), { recursive: true });
    const result = await cli(['skills', 'update']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/\.roo.*gone/);
    expect(fs.existsSync(path.join(home.cwd, '.roo'))).toBe(false);
    // uninstall forgets it.
    expect((await cli(['skills', 'uninstall'])).code).toBe(0);
    expect(readManifest(env)).toMatchObject({ files: [], createdDirs: [] });
    expect(listTree(home.cwd)).toEqual([]);
  });

  it('uninstall --agent keeps a copy other agents still use', async () => {
    expect((await cli(['install', '--agent', 'codex', '--agent', 'amp'])).code).toBe(0);
    const skill = path.join(home.cwd, '.agents', 'skills', 'assetgen', 'SKILL.md');
    const partial = await cli(['skills', 'uninstall', '--agent', 'codex', '--json']);
    expect(partial.code).toBe(0);
    expect((JSON.parse(partial.stdout) as { files: { action: string }[] }).files.every((f) => f.action === 'detach')).toBe(true);
    expect(fs.existsSync(skill)).toBe(true);
    expect(readManifest(env).files.every((e) => e.agents.join() === 'amp')).toBe(true);
    expect((await cli(['skills', 'uninstall', '--agent', 'amp'])).code).toBe(0);
    expect(listTree(home.cwd)).toEqual([]);
  });

  it('uninstall --scope and --project-dir touch only those copies', async () => {
    const other = path.join(home.home, 'other-project');
    fs.mkdirSync(other);
    expect((await cli(['install', '--agent', 'claude-code'])).code).toBe(0);
    expect((await cli(['install', '--agent', 'claude-code', '--project-dir', other])).code).toBe(0);
    expect((await cli(['install', '--agent', 'claude-code', '--scope', 'user'])).code).toBe(0);
    expect(fs.existsSync(path.join(other, '.claude', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);

    expect((await cli(['skills', 'uninstall', '--project-dir', other])).code).toBe(0);
    expect(fs.existsSync(path.join(other, '.claude'))).toBe(false);
    expect(fs.existsSync(path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    expect((await cli(['skills', 'uninstall', '--scope', 'user'])).code).toBe(0);
    expect(fs.existsSync(path.join(home.home, '.claude'))).toBe(false);
    expect(fs.existsSync(path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md'))).toBe(true);
    expect(readManifest(env).files.map((e) => e.scope)).toEqual(['project', 'project', 'project']);
  });

  it('keeps a file it did not write: the new version goes beside it', async () => {
    const theirs = path.join(home.cwd, '.roo', 'skills', 'assetgen', 'SKILL.md');
    fs.mkdirSync(path.dirname(theirs), { recursive: true });
    fs.writeFileSync(theirs, 'a skill of the same name, not ours');
    const result = await cli(['install', '--agent', 'roo']);
    expect(result.code).toBe(0);
    expect(fs.readFileSync(theirs, 'utf8')).toBe('a skill of the same name, not ours');
    expect(fs.readFileSync(`${theirs}.new`, 'utf8')).toMatch(/^---\nname: assetgen/);
    // Uninstall removes what it wrote (the .new and the references) and leaves theirs.
    expect((await cli(['skills', 'uninstall'])).code).toBe(0);
    expect(listTree(path.join(home.cwd, '.roo'))).toEqual(['skills', 'skills/assetgen', 'skills/assetgen/SKILL.md']);
  });

  it('checks its input before writing anything', async () => {
    expect((await cli(['install', '--agent', 'nope'])).code).toBe(2);
    expect((await cli(['install', '--agent', 'kiro', '--scope', 'galaxy'])).code).toBe(2);
    expect((await cli(['install', '--agent', 'kiro', '--project-dir', 'missing-dir'])).code).toBe(2);
    expect((await cli(['install', '--agent', 'kiro', '--scope', 'user', '--project-dir', '.'])).code).toBe(2);
    expect((await cli(['install', '--all-detected'])).code).toBe(2); // nothing detected here
    expect(listTree(home.cwd)).toEqual([]);
    // A damaged manifest stops everything: guessing could delete the wrong files.
    fs.mkdirSync(path.dirname(manifestPath(env)), { recursive: true });
    fs.writeFileSync(manifestPath(env), '{ not json');
    const damaged = await cli(['install', '--agent', 'kiro']);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain('manifest');
    // The installer's own error: said with its fix, not reported as a bug in assetgen.
    expect(damaged.stderr).toContain('Fix or remove it');
    expect(damaged.stderr).not.toContain('bug in assetgen');
    expect(jsonError(await cli(['skills', 'list', '--json']))).toMatchObject({ code: 'damaged_manifest', exitCode: 1 });
    expect((await cli(['skills', 'uninstall'])).code).toBe(1);
    expect(listTree(home.cwd)).toEqual([]);
  });

  it('skills list shows each copy, its state and the detected agents', async () => {
    fs.mkdirSync(path.join(home.home, '.cursor'));
    expect((await cli(['install', '--agent', 'claude-code', '--agent', 'kiro'])).code).toBe(0);
    fs.appendFileSync(path.join(home.cwd, '.kiro', 'skills', 'assetgen', 'SKILL.md'), 'edit');
    const listed = JSON.parse((await cli(['skills', 'list', '--json'])).stdout) as {
      installed: { path: string; state: string }[];
      detected: string[];
      agents: { id: string }[];
    };
    expect(listed.detected).toEqual(['cursor']);
    expect(listed.agents.map((a) => a.id)).toEqual(CODING_AGENTS.map((a) => a.id));
    expect(listed.installed.filter((f) => f.state === 'edited').map((f) => path.basename(f.path))).toEqual(['SKILL.md']);
    const human = await cli(['skills', 'list']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/edited.*kiro/);
    expect(human.stdout).toMatch(/installed.*claude-code/);
  });
  it('renders the skill with the command that will work for the agent later', async () => {
    const global = path.join(home.home, 'global-bin');
    fs.mkdirSync(global);
    fs.writeFileSync(path.join(global, process.platform === 'win32' ? 'assetgen.cmd' : 'assetgen'), '', { mode: 0o755 });
    const npxCache = path.join(home.home, '.npm', '_npx', 'f00d', 'node_modules', '.bin');
    fs.mkdirSync(npxCache, { recursive: true });
    fs.writeFileSync(path.join(npxCache, process.platform === 'win32' ? 'assetgen.cmd' : 'assetgen'), '', { mode: 0o755 });
    const version = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    const skill = (dir: string) => fs.readFileSync(path.join(home.cwd, dir, 'skills', 'assetgen', 'SKILL.md'), 'utf8');

    env = { ...env, PATH: [npxCache, home.env.PATH].join(path.delimiter) };
    expect((await cli(['install', '--agent', 'kiro'])).code).toBe(0);
    expect(skill('.kiro')).toContain(`${process.execPath} ${OWN_SCRIPT} generate`);
    expect(skill('.kiro')).not.toMatch(/npx/);
    expect(version).toMatch(/^\d/);

    env = { ...env, PATH: [global, home.env.PATH].join(path.delimiter) };
    expect((await cli(['install', '--agent', 'roo'])).code).toBe(0);
    expect(skill('.roo')).toMatch(/^assetgen generate /m);
    // `update` re-renders what is installed with the command of now.
    expect((await cli(['skills', 'update'])).code).toBe(0);
    expect(skill('.kiro')).not.toContain(OWN_SCRIPT);
  });

  it('a skill installed with no assetgen on PATH carries command lines that run here, with that PATH (spawned)', async () => {
    expect(spawnSync('sh', ['-c', 'command -v assetgen'], { env: { PATH: home.env.PATH } }).status).not.toBe(0);
    const installed = await runCli(['install', '--agent', 'claude-code', '--yes'], { env, cwd: home.cwd });
    expect(installed.code, installed.stderr).toBe(0);
    const skill = fs.readFileSync(path.join(home.cwd, '.claude', 'skills', 'assetgen', 'SKILL.md'), 'utf8');
    expect(skill).not.toMatch(/npx/);
    // The skill's own line for checking access, run by a shell as an agent would, with the same PATH.
    const line = /^(.*auth status -q --json)$/m.exec(skill)?.[1];
    expect(line).toBeDefined();
    const ran = spawnSync('sh', ['-c', line!], { cwd: home.cwd, env, encoding: 'utf8', timeout: 30_000 });
    expect(ran.stdout, ran.stderr).toMatch(/^\{/);
    expect(JSON.parse(ran.stdout)).toHaveProperty('authenticated', false);
  });
});
