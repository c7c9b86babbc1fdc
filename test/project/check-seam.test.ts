// The reviewer's case through the real command table (dist/, in-process) against the mock: the
// mock's own seamless brick tile (tile-smith) passes `seam: {max: 8}` as generated, and cut anywhere
// else (the same repeating plane: rolled by a few pixels, by whole cells, onto its mortar lines) it
// scores about the same; the same file given a real seam (a gradient) fails with exit 9. No paid
// call after the one build.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { makePixels, readPixels, toPng, type Pixels, type RGBA } from '../imaging/pixels.js';
import { writeFiles } from './helpers.js';

const MANIFEST = `defaults: { agent: tile-smith, out: assets/ }
assets:
  - { id: floor, prompt: "mossy stone floor, seamless", tile: true, checks: { alpha: false, seam: { max: 8 } } }
`;

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });

/** The tile cut `dx`, `dy` pixels over: pixel for pixel the same plane when repeated. */
const rolled = (tile: Pixels, dx: number, dy: number): Pixels =>
  makePixels(tile.width, tile.height, (x, y) => {
    const at = (((y + dy) % tile.height) * tile.width + ((x + dx) % tile.width)) * 4;
    return [tile.data[at], tile.data[at + 1], tile.data[at + 2], tile.data[at + 3]];
  });

describe('check: the seam of a tile', () => {
  it('the mock’s seamless tile passes wherever it is cut; a real seam fails', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': MANIFEST });
    const built = await project.run(['build', '--yes', '--json']);
    expect(built.code, built.stderr).toBe(0);
    const file = path.join(project.cwd, 'assets/floor.png');
    const tile = await readPixels(fs.readFileSync(file));
    const seamOf = async (): Promise<{ code: number | null; seam: number }> => {
      const checked = await project.run(['check', '--json']);
      return { code: checked.code, seam: parseJson(checked).files[0].seam };
    };
    // As generated: its bottom edge is a mortar line (the old figure read 79.63 here and failed).
    const generated = await seamOf();
    expect(generated.code).toBe(0);
    expect(generated.seam).toBeLessThanOrEqual(2);
    // The same plane cut elsewhere: inside a cell (the old figure 0), on cell edges, across mortar.
    const seams = [generated.seam];
    for (const [dx, dy] of [
      [5, 5],
      [8, 8],
      [24, 16],
      [40, 104],
      [3, 120],
    ]) {
      fs.writeFileSync(file, await toPng(rolled(tile, dx, dy)));
      const cut = await seamOf();
      expect(cut.code, `cut ${dx},${dy}`).toBe(0);
      seams.push(cut.seam);
    }
    expect(Math.max(...seams) - Math.min(...seams)).toBeLessThanOrEqual(2);

    // A gradient from left to right: a seam where its last column meets its first.
    fs.writeFileSync(
      file,
      await toPng(makePixels(tile.width, tile.height, (x): RGBA => [Math.round((x * 255) / (tile.width - 1)), 90, 40, 255])),
    );
    const broken = await project.run(['check', '-q']);
    expect(broken.code).toBe(EXIT.checksFailed);
    expect(broken.stderr).toMatch(/✗ assets\/floor\.png \(floor\): seam 2\d\d(\.\d+)? is above the max of 8\n/);
  });
});
