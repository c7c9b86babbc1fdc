// Every table assetgen prints, on a real 60-column terminal: no line wraps (each fits the width, as
// the terminal measures it), and the id a person copies stays whole where there is room for it.
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { spawnPty } from '../support/pty.js';

const COLUMNS = 60;
const MANIFEST = `assets:
  - id: inventory-potion-large-red
    prompt: a large red healing potion in a round glass flask, cork stopper, 32x32 pixel art
    agent: icon-forge
    out: assets/icons/items/consumables/potion-large-red.png
  - id: hero
    workflow: wf_character_turnaround
    set: { character: a dwarf miner with a lantern and a long braided beard }
    out: assets/sprites/characters/hero/
`;

const project = useMockProject({ config: { credits: 10_000, videoPollAfterMs: 10 }, files: { 'assetgen.yaml': MANIFEST } });

/** The lines a command shows on a 60-column terminal, escapes removed; -q keeps stderr's prose out. */
async function linesOn60Columns(args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const session = spawnPty(['-q', ...args], { env: { ...env, NO_COLOR: '1' }, cwd: project.cwd, cols: COLUMNS });
  expect(await session.exit, session.output()).toBe(0);
  return stripVTControlCharacters(session.output())
    .split(/\r?\n/)
    .map((line) => line.replace(/\r/g, ''));
}

describe(`tables on a ${COLUMNS}-column terminal`, () => {
  it('agents, workflows, jobs, the build plan and installed skills: no line wraps', async () => {
    const env = { ...project.env(), ASSETGEN_SESSION: project.mock.sessionCookie };
    // Something for `jobs` and `skills list` to show.
    for (const args of [
      ['workflows', 'run', 'wf_character_turnaround', '--no-wait', '--set', 'character=a very long character prompt for the label column'],
      ['video', 'create', 'torch flickering on a dungeon wall, seamless loop', '--yes', '--no-wait'],
      ['install', '--agent', 'claude-code', '--agent', 'codex', '--scope', 'project', '--yes'],
    ]) {
      const result = await runInProcess(args, { env, cwd: project.cwd });
      expect(result.code, result.stderr).toBe(0);
    }
    const tables: [string[], string][] = [
      [['agents'], 'motion-director'],
      [['workflows', 'list'], 'wf_character_turnaround'],
      [['jobs'], 'video'],
      [['build', '--dry-run'], 'invent…'], // seven columns in 60: each is cut
      [['skills', 'list'], 'project'],
    ];
    for (const [args, whole] of tables) {
      const lines = await linesOn60Columns(args, env);
      for (const line of lines) expect(stringWidth(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(COLUMNS);
      expect(lines.join('\n'), args.join(' ')).toContain(whole);
    }
  });
});
