// The bash completion script, sourced into a real bash and asked for candidates the way bash asks;
// `--agent` also in an interactive bash on a pseudo-terminal, where bash's fallback to file names lives.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pty from '@lydell/node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODING_AGENTS } from '../../src/installer/agents.js';
import { BIN, runInProcess, tempHome } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
let script: string;

/** A service URL that is never called: completion reads the cache only. */
const SERVICE = 'http://127.0.0.1:9';
/** `assetgen` on PATH (the script runs it for the cached ids), and the env bash runs in. */
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  home = tempHome();
  const bin = path.join(home.home, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'assetgen'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
  env = { ...home.env, PATH: `${bin}${path.delimiter}${home.env.PATH}`, ASSETGEN_BASE_URL: SERVICE };
  const result = await runInProcess(['completion', 'bash'], { env: home.env, cwd: home.cwd });
  expect(result.code).toBe(0);
  script = path.join(home.home, 'assetgen.bash');
  fs.writeFileSync(script, result.stdout);
});
afterAll(() => home.remove());

/** What bash offers for the words typed so far (the last one is being completed). */
function complete(...words: string[]): string[] {
  const array = ['assetgen', ...words].map((word) => `'${word}'`).join(' ');
  const program = `source '${script}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length}; _assetgen; complete -p assetgen >/dev/null && printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8', env });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
}

const cacheFile = () => path.join(home.env.ASSETGEN_CONFIG_DIR!, 'agents-cache.json');
function writeCache(agents: { id: string; kind: string }[]): void {
  fs.mkdirSync(path.dirname(cacheFile()), { recursive: true });
  fs.writeFileSync(cacheFile(), JSON.stringify({ services: { [SERVICE]: { listedAt: '2026-01-01T00:00:00.000Z', agents } } }));
}

describe('bash completion', () => {
  it('completes commands, subcommands, options and fixed values', () => {
    expect(complete('')).toEqual(expect.arrayContaining(['generate', 'workflows', 'video', 'auth', 'completion']));
    expect(complete('vi')).toEqual(['video']);
    expect(complete('video', '')).toEqual(['create', 'get', 'wait']);
    expect(complete('workflows', 'r')).toEqual(['run']);
    expect(complete('video', 'create', 'torch', '--')).toEqual(
      expect.arrayContaining(['--yes', '--no-wait', '--interval', '--json', '--base-url']),
    );
    expect(complete('video', 'create', 'torch', '--')).not.toContain('--stream');
    expect(complete('skills', 'install', '--scope', '')).toEqual(['project', 'user']);
    expect(complete('--json', 'generate', 'x', '--ag')).toEqual(['--agent']);
    expect(complete('completion', '')).toEqual([]);
  });

  it('offers nothing of its own where a value is expected (the shell completes files there)', () => {
    expect(complete('generate', 'x', '-o', '')).toEqual([]);
    expect(complete('--timeout', '')).toEqual([]);
  });

  it('completes --agent with agent ids: the installer table for install and skills, the cached list for generate and video', () => {
    const installerIds = CODING_AGENTS.map((agent) => agent.id);
    expect(complete('install', '--agent', '')).toEqual(installerIds);
    expect(complete('skills', 'uninstall', '-a', 'cl')).toEqual(installerIds.filter((id) => id.startsWith('cl')));
    expect(complete('generate', 'x', '--agent', '')).toEqual([]);
    writeCache([
      { id: 'sprite-artist', kind: 'image' },
      { id: 'icon-forge', kind: 'image' },
      { id: 'motion-director', kind: 'video' },
    ]);
    expect(complete('generate', 'x', '--agent', '')).toEqual(['sprite-artist', 'icon-forge']);
    expect(complete('generate', 'x', '-a', 'ic')).toEqual(['icon-forge']);
    expect(complete('video', 'create', 'x', '--agent', '')).toEqual(['motion-director']);
    fs.rmSync(cacheFile());
  });

  it('never offers file names for --agent in an interactive bash, cached ids or not', async () => {
    fs.writeFileSync(path.join(home.cwd, 'sprite-notes.png'), 'not an agent');
    /** What an interactive bash shows after `line` and `tabs` Tab presses. */
    const typed = async (line: string, tabs: string): Promise<string> => {
      const shell = pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
        cols: 200,
        rows: 30,
        cwd: home.cwd,
        env: { ...env, PS1: '$ ', TERM: 'dumb' } as Record<string, string>,
      });
      let screen = '';
      shell.onData((data) => (screen += data));
      const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
      const timer = setTimeout(() => shell.kill(), 10_000);
      const settle = async (minimum: number): Promise<void> => {
        for (let waited = 0, length = -1; waited < 5_000 && (screen.length !== length || waited < minimum); waited += 100) {
          length = screen.length;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      shell.write(`source '${script}'; echo sourced\r`);
      for (let waited = 0; waited < 5_000 && !/\nsourced/.test(screen); waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      shell.write(`${line}${tabs}`);
      // Completing `--agent` runs `assetgen` once: the screen settles when it has answered.
      await settle(700);
      shell.write('\x15exit\r'); // Ctrl-U: the typed line goes; then leave
      await exited;
      clearTimeout(timer);
      return screen.slice(screen.lastIndexOf(line));
    };
    // Nothing cached: Tab Tab offers nothing (bash would otherwise list the files).
    expect(await typed('assetgen generate x --agent spr', '\t\t')).not.toContain('sprite-notes.png');
    writeCache([{ id: 'sprite-artist', kind: 'image' }]);
    const withCache = await typed('assetgen generate x --agent spr', '\t');
    expect(withCache).toContain('sprite-artist');
    expect(withCache).not.toContain('sprite-notes.png');
    fs.rmSync(cacheFile());
    // Elsewhere a value is a path: the shell still completes files there.
    expect(await typed('assetgen generate x -o spr', '\t')).toContain('sprite-notes.png');
  });

  it('has zsh and fish scripts too, and refuses other shells', async () => {
    const zsh = await runInProcess(['completion', 'zsh'], { env: home.env, cwd: home.cwd });
    expect(zsh.stdout).toMatch(/^#compdef assetgen/);
    expect(zsh.stdout).toContain('bashcompinit');
    const fish = await runInProcess(['completion', 'fish'], { env: home.env, cwd: home.cwd });
    expect(fish.stdout).toContain("complete -c assetgen -n 'not __fish_seen_subcommand_from");
    expect(fish.stdout).toContain("-l scope -x -a 'project user'");
    expect(fish.stdout).toContain("-l agent -x -a '(command assetgen completion fish --agent-ids image </dev/null 2>/dev/null)'");
    expect(fish.stdout).toContain(`-l agent -x -a '${CODING_AGENTS.map((agent) => agent.id).join(' ')}'`);
    expect((await runInProcess(['completion', 'tcsh'], { env: home.env, cwd: home.cwd })).code).toBe(2);
  });
});
