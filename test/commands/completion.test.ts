// The bash completion script, sourced into a real bash and asked for candidates the way bash asks.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, tempHome } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
let script: string;

beforeAll(async () => {
  home = tempHome();
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
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' });
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

  it('has zsh and fish scripts too, and refuses other shells', async () => {
    const zsh = await runInProcess(['completion', 'zsh'], { env: home.env, cwd: home.cwd });
    expect(zsh.stdout).toMatch(/^#compdef assetgen/);
    expect(zsh.stdout).toContain('bashcompinit');
    const fish = await runInProcess(['completion', 'fish'], { env: home.env, cwd: home.cwd });
    expect(fish.stdout).toContain("complete -c assetgen -n 'not __fish_seen_subcommand_from");
    expect(fish.stdout).toContain("-l scope -x -a 'project user'");
    expect((await runInProcess(['completion', 'tcsh'], { env: home.env, cwd: home.cwd })).code).toBe(2);
  });
});
