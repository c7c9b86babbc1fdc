// What a person sees while `assetgen build` runs on a terminal: a live line per running asset and a
// footer of totals, redrawn in place and cut to the terminal's width, leaving only one line per
// finished asset and the summary; piped, plain lines; with -q, nothing but errors.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { runCli } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { replayLines, spawnPty } from '../support/pty.js';
import { writeFiles } from '../project/helpers.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: sword, prompt: rusty sword icon }
  - { id: shield, prompt: wooden shield }
  - { id: hero, workflow: wf_sprite_sheet, set: { character: a dwarf miner with a very long description } }
`;
const COLUMNS = 50;
const ESC = '\x1b';

// Every answer takes 300 ms: the board (redrawn every 100 ms) is seen with assets running.
const project = useMockProject({
  mock: { credits: 100_000 },
  config: { latencyMs: 300, faults: { rate: 0 } },
  files: { 'assetgen.yaml': MANIFEST },
});

describe('assetgen build on a terminal', () => {
  it('shows a live line per running asset and the totals, then leaves one line per asset', async () => {
    const session = spawnPty(['build'], { env: project.env(), cwd: project.cwd, cols: COLUMNS });
    await session.waitFor('sword  generating with sprite-artist');
    await session.waitFor('0/3 done · ');
    expect(await session.exit).toBe(0);
    const { screen, erased } = replayLines(session.output());
    // Every live row fits the terminal: none wraps, so erasing the board never leaves debris.
    expect(erased.length).toBeGreaterThan(3);
    for (const row of erased) expect(stringWidth(row), row).toBeLessThan(COLUMNS);
    expect(erased.some((row) => /^\S hero {2}Run run_\w+: node/.test(row))).toBe(true);
    expect(erased.some((row) => row.endsWith('…'))).toBe(true);
    // What stays: a line per asset and the summary; no spinner, no footer.
    expect(
      screen
        .filter((row) => row.startsWith('✓ '))
        .map((row) => row.split(/\s+/)[1])
        .sort(),
    ).toEqual(['hero', 'shield', 'sword']);
    expect(screen.at(-2)).toMatch(/^Built 3, resumed 0, unchanged 0; \d+ credits\.$/);
    expect(screen.join('\n')).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|done · /);
  });

  it('--verbose on a terminal: trace lines and plain result lines, no board to tear them apart', async () => {
    const session = spawnPty(['build', 'sword', '--verbose'], { env: project.env(), cwd: project.cwd, cols: COLUMNS });
    expect(await session.exit).toBe(0);
    const output = session.output();
    expect(output).toContain('→ POST');
    expect(output).toMatch(/✓ sword {2}built/);
    expect(output).not.toMatch(new RegExp(`${ESC}\\[\\d+A`)); // no "cursor up": nothing redrawn
  });

  it('piped: plain lines, no escape sequences; -q: nothing at all on success', async () => {
    const piped = await runCli(['build'], { env: project.env(), cwd: project.cwd });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain('\x1b');
    expect(piped.stderr.split('\n').filter((line) => line.startsWith('✓ '))).toHaveLength(3);
    writeFiles(project.cwd, { 'assetgen.yaml': MANIFEST.replace('wooden shield', 'iron shield') });
    const quiet = await runCli(['build', '-q'], { env: project.env(), cwd: project.cwd });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
  });
});
