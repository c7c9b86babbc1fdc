// The bash completion script, sourced into a real bash and asked for candidates the way bash asks;
// `--agent` in an interactive bash on a pseudo-terminal, where bash's fallback to file names lives,
// is in the slow tier (test/slow/completion-terminal.test.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODING_AGENTS } from '../../src/installer/agents.js';
import { runInProcess } from '../support/cli.js';
import { useCompletionSetup } from '../support/completion.js';

const completion = useCompletionSetup();

/** What bash offers for the words typed so far (the last one is being completed). */
function complete(...words: string[]): string[] {
  const array = ['assetgen', ...words].map((word) => `'${word}'`).join(' ');
  const program = `source '${completion.script}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length}; _assetgen; complete -p assetgen >/dev/null && printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8', env: completion.env });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
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
    completion.writeCache([
      { id: 'sprite-artist', kind: 'image' },
      { id: 'icon-forge', kind: 'image' },
      { id: 'motion-director', kind: 'video' },
    ]);
    expect(complete('generate', 'x', '--agent', '')).toEqual(['sprite-artist', 'icon-forge']);
    expect(complete('generate', 'x', '-a', 'ic')).toEqual(['icon-forge']);
    expect(complete('video', 'create', 'x', '--agent', '')).toEqual(['motion-director']);
    fs.rmSync(completion.cacheFile());
  });

  it('has zsh and fish scripts too, and refuses other shells', async () => {
    const zsh = await runInProcess(['completion', 'zsh'], { env: completion.home.env, cwd: completion.home.cwd });
    expect(zsh.stdout).toMatch(/^#compdef assetgen/);
    expect(zsh.stdout).toContain('bashcompinit');
    const fish = await runInProcess(['completion', 'fish'], { env: completion.home.env, cwd: completion.home.cwd });
    expect(fish.stdout).toContain("complete -c assetgen -n 'not __fish_seen_subcommand_from");
    expect(fish.stdout).toContain("-l scope -x -a 'project user'");
    expect(fish.stdout).toContain("-l agent -x -a '(command assetgen completion fish --agent-ids image </dev/null 2>/dev/null)'");
    expect(fish.stdout).toContain(`-l agent -x -a '${CODING_AGENTS.map((agent) => agent.id).join(' ')}'`);
    expect((await runInProcess(['completion', 'tcsh'], { env: completion.home.env, cwd: completion.home.cwd })).code).toBe(2);
  });
});
