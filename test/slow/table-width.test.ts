// Every table assetgen prints, on a real 60-column terminal: no line wraps (each fits the width, as
// the terminal measures it), and the id a person copies is never cut: other columns give way first.
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { parseJson, runInProcess } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { spawnPty } from '../support/pty.js';

const COLUMNS = 60;
// Ids that share their first letters (a table cut at 8 columns showed `item-s…` three times), and
// one as long as a real project's.
const MANIFEST = `assets:
  - id: inventory-potion-large-red
    prompt: a large red healing potion in a round glass flask, cork stopper, 32x32 pixel art
    agent: icon-forge
    out: assets/icons/items/consumables/potion-large-red.png
  - id: item-sword
    prompt: rusty sword icon, 32x32 pixel art
    agent: icon-forge
    out: assets/icons/items/weapons/
  - id: item-shield
    prompt: round wooden shield icon, 32x32 pixel art
    agent: icon-forge
    out: assets/icons/items/armour/
  - id: item-staff
    prompt: gnarled wizard staff icon, 32x32 pixel art
    agent: icon-forge
    out: assets/icons/items/weapons/
  - id: hero
    workflow: wf_character_turnaround
    set: { character: a dwarf miner with a lantern and a long braided beard }
    out: assets/sprites/characters/hero/
`;

const project = useMockProject({ config: { credits: 10_000, videoPollAfterMs: 10 }, files: { 'assetgen.yaml': MANIFEST } });

/** The lines a command shows on a 60-column terminal, escapes removed; -q keeps stderr's prose out. */
async function linesOn60Columns(args: string[], env: NodeJS.ProcessEnv, quiet = true): Promise<string[]> {
  const session = spawnPty([...(quiet ? ['-q'] : []), ...args], { env: { ...env, NO_COLOR: '1' }, cwd: project.cwd, cols: COLUMNS });
  expect(await session.exit, session.output()).toBe(0);
  return stripVTControlCharacters(session.output())
    .split(/\r?\n/)
    .map((line) => line.replace(/\r/g, ''));
}

/** The ids the table lists, from the same command's --json. */
async function idsOf(args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const document = parseJson(await runInProcess([...args, '--json'], { env, cwd: project.cwd }));
  const list = (document.items ?? document.agents ?? document.workflows ?? document.jobs) as { id: string }[];
  return list.map((entry) => entry.id);
}

describe(`tables on a ${COLUMNS}-column terminal`, () => {
  it('agents, workflows, jobs and the build plan: no line wraps, every id whole', async () => {
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
    const tables: [string[], string[]][] = [
      [['agents'], await idsOf(['agents'], env)],
      [['workflows', 'list'], await idsOf(['workflows', 'list'], env)],
      [['jobs'], await idsOf(['jobs'], env)],
      [['build', '--dry-run'], await idsOf(['build', '--dry-run'], env)],
    ];
    expect(tables[3]![1]).toEqual(['inventory-potion-large-red', 'item-sword', 'item-shield', 'item-staff', 'hero']);
    for (const [args, ids] of tables) {
      const lines = await linesOn60Columns(args, env);
      for (const line of lines) expect(stringWidth(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(COLUMNS);
      expect(ids.length, args.join(' ')).toBeGreaterThan(0);
      // Each id is a whole word of one line: not cut, not run into the next column.
      for (const id of ids)
        expect(lines.filter((line) => line.split(/\s+/).includes(id)).length, `${args.join(' ')}: ${id}\n${lines.join('\n')}`).toBe(1);
    }
  });

  it('skills list (no id column): no line wraps', async () => {
    await project.run(['install', '--agent', 'claude-code', '--scope', 'project', '--yes']);
    const lines = await linesOn60Columns(['skills', 'list'], project.env());
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(COLUMNS);
    expect(lines.join('\n')).toContain('project');
  });

  it('the build plan says which columns it left out to keep the ids whole', async () => {
    const lines = await linesOn60Columns(['build', '--dry-run'], project.env(), false);
    expect(lines.slice(0, 6)).toEqual([
      'ID                          STATUS  ACTION    CREDITS',
      'inventory-potion-large-red  new     generate  ?',
      'item-sword                  new     generate  ?',
      'item-shield                 new     generate  ?',
      'item-staff                  new     generate  ?',
      'hero                        new     generate  ?',
    ]);
    expect(lines).toContain(`Left out to fit ${COLUMNS} columns: KIND, OUT, WHY (pipe the output, or use --json, for every column).`);
  });
});
