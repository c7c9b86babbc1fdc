// `assetgen init --engine godot` where it asks (test/project/init-engines.test.ts has the rest): the
// diff shown and the question on a real terminal, "no" writing nothing and "yes" the change. In the
// slow tier: it drives the CLI on a pseudo-terminal.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesUnder, tempHome } from '../support/cli.js';
import { spawnPty } from '../support/pty.js';
import { STARTER, writeFiles } from '../project/helpers.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`../project/fixtures/${name}`, import.meta.url), 'utf8');
const GODOT = fixture('project.godot');
const GODOT_AFTER = fixture('project.godot.after');

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const read = (file: string): string => fs.readFileSync(path.join(home.cwd, file), 'utf8');
/** Every file under the project, relative, sorted. */
const tree = (): string[] => filesUnder(home.cwd);

describe('assetgen init on a terminal', () => {
  it('shows the diff and asks; "no" writes nothing, "yes" writes it', async () => {
    writeFiles(home.cwd, { 'project.godot': GODOT, 'assetgen.yaml': STARTER });
    const declined = spawnPty(['init', '--engine', 'godot'], { env: home.env, cwd: home.cwd });
    await declined.waitFor('+textures/canvas_textures/default_texture_filter=0');
    await declined.waitFor('Write these changes?');
    declined.write('n\r');
    expect(await declined.exit).toBe(2);
    expect(declined.output()).toContain('Cancelled: nothing was written.');
    expect(tree()).toEqual(['assetgen.yaml', 'project.godot']);

    const accepted = spawnPty(['init', '--engine', 'godot'], { env: home.env, cwd: home.cwd });
    await accepted.waitFor('Write these changes?');
    accepted.write('y\r');
    expect(await accepted.exit).toBe(0);
    expect(read('project.godot')).toBe(GODOT_AFTER);
  });
});
