// `assetgen init --engine phaser|pixi`: the code to paste is the command's result for those engines,
// so it is on stdout, as it is (unindented), after the files written, and -q does not hide it (-q
// silences the diffs and notes on stderr). With --json it stays the document's `snippet` only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PHASER_SNIPPET, PIXI_SNIPPET } from '../../src/engines/web.js';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const init = (args: string[]) => runInProcess(['init', ...args], { env: home.env, cwd: home.cwd });

describe('assetgen init --engine phaser|pixi -q', () => {
  it('prints the snippet on stdout with -q, after the files written; stderr stays empty', async () => {
    const phaser = await init(['--engine', 'phaser', '-q']);
    expect(phaser.code, phaser.stderr).toBe(0);
    expect(phaser.stdout).toBe(`assetgen.yaml\n.gitignore\n${PHASER_SNIPPET}\n`);
    expect(phaser.stdout).toContain('pixelArt: true');
    expect(phaser.stderr).toBe('');
    // Set up already: nothing written, the snippet still the result.
    const pixi = await init(['--engine', 'pixi', '--quiet']);
    expect(pixi.code, pixi.stderr).toBe(0);
    expect(pixi.stdout).toBe(`${PIXI_SNIPPET}\n`);
    expect(pixi.stdout).toContain("scaleMode = 'nearest'");
    expect(pixi.stderr).toBe('');
  });

  it('without -q the snippet is on stdout too, where it goes said on stderr; --json keeps stdout one document', async () => {
    const pixi = await init(['--engine', 'pixi', '--dry-run']);
    expect(pixi.code, pixi.stderr).toBe(0);
    expect(pixi.stdout).toBe(`${PIXI_SNIPPET}\n`);
    expect(pixi.stderr).toContain('Add this to your PixiJS 8 start-up code, before any texture loads (assetgen writes nothing for it):');
    expect(pixi.stderr).not.toContain('scaleMode');
    const json = await init(['--engine', 'phaser', '-q', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(parseJson(json).snippet).toEqual({ language: 'js', code: PHASER_SNIPPET, where: 'your Phaser game config' });
  });
});
