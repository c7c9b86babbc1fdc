// `assetgen check` on real files through the real command table (dist/, in-process; spawned where
// a defect would hang: the FIFO): fixtures drawn with known figures —
// a sprite filling a quarter of its canvas in 17 colours, a tile whose seam scores 16, a matrix
// of six where one is drawn the other way round — give those exact figures and exit 9 naming each
// broken rule; the same outputs under rules they meet exit 0. No service is configured at all.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAS_FIFOS } from '../support/platform.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { sha256 } from '../../src/pipeline/hash.js';
import { serializeLock } from '../../src/pipeline/lock.js';
import type { Lock } from '../../src/pipeline/records.js';
import { jsonError, parseJson, runCli, runInProcess, tempHome } from '../support/cli.js';
import { makePixels, toPng, type RGBA } from '../imaging/pixels.js';
import { writeFiles } from './helpers.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

/** 64×64, transparent but for a 32×32 square of 16 colours: fill 0.25, 17 colours with the transparent one. */
const sprite = () =>
  toPng(
    makePixels(64, 64, (x, y) =>
      x >= 16 && x < 48 && y >= 16 && y < 48 ? [((x - 16) % 4) * 60, ((y - 16) % 4) * 60, 90, 255] : [0, 0, 0, 0],
    ),
  );
/**
 * 32×32 opaque in 4 colours: bands of 8 columns, grey 100, 108, 116 and 124. Inside, neighbouring
 * columns differ by 8 at most; the last column (124) beside the first (100) by 24: a seam of 24 − 8 = 16.
 */
const tile = () =>
  toPng(
    makePixels(32, 32, (x): RGBA => {
      const grey = 100 + 8 * Math.floor(x / 8);
      return [grey, grey, grey, 255];
    }),
  );
/** A gem brightening to the right (every hash bit 0), in its own hue; `flipped`: darkening (every bit 1). */
const gem = (hue: number, flipped = false) =>
  toPng(
    makePixels(36, 32, (x): RGBA => {
      const level = (flipped ? 35 - x : x) * 7;
      return [Math.min(255, level + hue), level, Math.floor(level / 2), 255];
    }),
  );

const MANIFEST = (rules: { fill: string; colors: number; seam: number; outlier: number }) => `defaults:
  agent: icon-forge
  out: assets/
  checks: { alpha: required }
assets:
  - id: sprite
    prompt: a sprite
    checks: { fill: ${rules.fill}, colors: { max: ${rules.colors} } }
  - id: floor
    prompt: a floor tile
    tile: true
    checks: { alpha: false, seam: { max: ${rules.seam} } }
  - id: gem-\${n}
    prompt: gem number \${n}
    matrix: { n: [1, 2, 3, 4, 5, 6] }
    checks: { alpha: false, outlier: { max: ${rules.outlier} } }
`;
const FAILING = { fill: '{ min: 0.5 }', colors: 16, seam: 8, outlier: 16 };
/** The figures exactly: each limit at the figure measured passes. */
const PASSING = { fill: '{ min: 0.25, max: 0.25 }', colors: 17, seam: 16, outlier: 64 };

/** Writes the outputs and a lock recording them, as a build would leave them. */
async function writeProject(rules: typeof FAILING): Promise<void> {
  const outputs: Record<string, Buffer> = {
    'assets/sprite.png': await sprite(),
    'assets/floor.png': await tile(),
    ...Object.fromEntries(await Promise.all([1, 2, 3, 4, 5, 6].map(async (n) => [`assets/gem-${n}.png`, await gem(n * 10, n === 4)]))),
  };
  const lock: Lock = { lockfileVersion: 1, assets: {} };
  for (const [file, bytes] of Object.entries(outputs)) {
    const id = path.posix.basename(file, '.png');
    lock.assets[id] = {
      kind: 'image',
      agent: 'icon-forge',
      spec: 'b'.repeat(64),
      files: [{ path: file, sha256: sha256(bytes), size: bytes.length }],
    };
  }
  writeFiles(home.cwd, { ...outputs, 'assetgen.yaml': MANIFEST(rules), 'assetgen.lock': serializeLock(lock) });
}

const check = (args: string[] = []) => runInProcess(['check', ...args], { env: home.env, cwd: home.cwd });

describe('assetgen check', () => {
  it('measures the fixtures exactly, and exits 9 naming each broken rule with its figure', async () => {
    await writeProject(FAILING);
    const result = await check(['--json']);
    expect(result.code, result.stderr).toBe(EXIT.checksFailed);
    const document = parseJson(result);
    const byId = Object.fromEntries((document.files as { id: string }[]).map((file) => [file.id, file])) as Record<string, any>;
    expect(byId.sprite).toMatchObject({
      path: 'assets/sprite.png',
      width: 64,
      height: 64,
      alpha: true,
      bounds: { left: 16, top: 16, width: 32, height: 32 },
      fill: 0.25,
      colors: { count: 17, atLeast: false },
    });
    expect(byId.sprite.seam).toBeUndefined();
    expect(byId.floor).toMatchObject({ alpha: false, fill: 1, seam: 16 });
    // The matrix: five alike (distance 0 to one another), one drawn the other way round (all 64 bits apart).
    expect(byId['gem-1'].hash).toBe('0000000000000000');
    expect(byId['gem-4'].hash).toBe('ffffffffffffffff');
    for (const n of [1, 2, 3, 5, 6])
      expect(byId[`gem-${n}`].outlier).toEqual({ group: 'matrix gem-${n}', distance: 0, members: 6, flagged: false });
    expect(byId['gem-4'].outlier).toEqual({ group: 'matrix gem-${n}', distance: 64, members: 6, flagged: true });
    expect(document.failures).toEqual([
      {
        id: 'sprite',
        path: 'assets/sprite.png',
        rule: 'fill',
        figure: 0.25,
        limit: 'min 0.5',
        message: 'assets/sprite.png (sprite): fill 0.25 is below the min of 0.5',
      },
      {
        id: 'sprite',
        path: 'assets/sprite.png',
        rule: 'colors',
        figure: 17,
        limit: 'max 16',
        message: 'assets/sprite.png (sprite): 17 colours, above the max of 16',
      },
      {
        id: 'floor',
        path: 'assets/floor.png',
        rule: 'seam',
        figure: 16,
        limit: 'max 8',
        message: 'assets/floor.png (floor): seam 16 is above the max of 8',
      },
      {
        id: 'gem-4',
        path: 'assets/gem-4.png',
        rule: 'outlier',
        figure: 64,
        limit: 'max 16',
        message: 'assets/gem-4.png (gem-4): outlier in matrix gem-${n}: 64 of 64 bits from the others, above the max of 16',
      },
    ]);
    expect(document).toMatchObject({ ok: false, totals: { assets: 8, files: 8, unmeasured: 0, failures: 4 } });
    // The merged rules: the asset's own over defaults.checks, `false` turning one off.
    expect(document.rules.sprite).toEqual({ alpha: 'required', fill: { min: 0.5 }, colors: { max: 16 } });
    expect(document.rules.floor).toEqual({ seam: { max: 8 } });
    expect(jsonError(result)).toMatchObject({ code: 'checks_failed', exitCode: 9 });
  });

  it('people get a table of the figures and a line per broken rule on stderr, even with -q', async () => {
    await writeProject(FAILING);
    const result = await check(['-q']);
    expect(result.code).toBe(EXIT.checksFailed);
    // Piped: tab-separated rows, no header (ID FILE SIZE ALPHA FILL COLORS SEAM OUTLIER RESULT).
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.find((row) => row[0] === 'sprite')).toEqual([
      'sprite',
      'assets/sprite.png',
      '64×64',
      'yes',
      '0.25',
      '17',
      '',
      '',
      'FAIL fill, colors',
    ]);
    expect(rows.find((row) => row[0] === 'floor')).toEqual(['floor', 'assets/floor.png', '32×32', 'no', '1', '4', '16', '', 'FAIL seam']);
    expect(rows.find((row) => row[0] === 'gem-4')!.slice(7)).toEqual(['64/64 outlier', 'FAIL outlier']);
    expect(rows.find((row) => row[0] === 'gem-1')!.slice(7)).toEqual(['0/64', 'ok']);
    expect(result.stderr).toContain('✗ assets/sprite.png (sprite): fill 0.25 is below the min of 0.5\n');
    expect(result.stderr).toContain('✗ assets/floor.png (floor): seam 16 is above the max of 8\n');
    expect(result.stderr).toMatch(/^error: 4 checks failed: /m);
  });

  it('the same outputs under rules at their exact figures pass: exit 0', async () => {
    await writeProject(PASSING);
    const result = await check(['--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result)).toMatchObject({ ok: true, failures: [] });
  });

  it('ids select what is reported, each member still compared with its whole matrix', async () => {
    await writeProject(FAILING);
    const result = await check(['gem-4', '--json']);
    expect(result.code).toBe(EXIT.checksFailed);
    const document = parseJson(result);
    expect(document.files.map((file: { id: string }) => file.id)).toEqual(['gem-4']);
    expect(document.files[0].outlier).toMatchObject({ distance: 64, members: 6 });
    expect((await check(['floor', 'sprite', '--json'])).code).toBe(EXIT.checksFailed);
    const unknown = await check(['nothing-*']);
    expect([unknown.code, unknown.stderr]).toEqual([EXIT.usage, expect.stringContaining('No asset matches "nothing-*"')]);
  });

  it('an output with rules that is missing, or was never built, fails; one without rules is only listed', async () => {
    await writeProject(PASSING);
    fs.rmSync(path.join(home.cwd, 'assets/floor.png'));
    fs.appendFileSync(path.join(home.cwd, 'assetgen.yaml'), '  - { id: later, prompt: not built yet, checks: { alpha: false } }\n');
    const document = parseJson(await check(['--json']));
    expect(document.unmeasured).toEqual([
      { id: 'floor', path: 'assets/floor.png', problem: 'missing' },
      { id: 'later', path: null, problem: 'not built' },
    ]);
    expect(document.failures.map((failure: { message: string }) => failure.message)).toEqual([
      'assets/floor.png (floor): missing, so its checks cannot pass',
    ]);
    // `later` turned its only rule off: nothing to judge.
    expect(document.rules.later).toBeUndefined();
  });

  it('a file that is not an image is reported, not a crash', async () => {
    await writeProject(PASSING);
    fs.writeFileSync(path.join(home.cwd, 'assets/sprite.png'), 'not a png');
    const result = await check(['--json']);
    expect(result.code).toBe(EXIT.checksFailed);
    expect(parseJson(result).unmeasured).toEqual([
      { id: 'sprite', path: 'assets/sprite.png', problem: expect.stringMatching(/not an image/) },
    ]);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it.runIf(HAS_FIFOS)('a link is not followed and a FIFO is not waited on: each reported as not measured', async () => {
    await writeProject(PASSING);
    const outside = path.join(home.home, 'elsewhere.png');
    fs.renameSync(path.join(home.cwd, 'assets/sprite.png'), outside);
    fs.symlinkSync(outside, path.join(home.cwd, 'assets/sprite.png'));
    fs.rmSync(path.join(home.cwd, 'assets/floor.png'));
    execFileSync('mkfifo', [path.join(home.cwd, 'assets/floor.png')]);
    // A process of its own: waiting on the FIFO (the defect) is then a killed CLI, not a stuck worker.
    const result = await runCli(['check', '--json'], { env: home.env, cwd: home.cwd });
    expect(result.code).toBe(EXIT.checksFailed);
    expect(parseJson(result).unmeasured).toEqual([
      { id: 'sprite', path: 'assets/sprite.png', problem: 'a symbolic link (not followed)' },
      { id: 'floor', path: 'assets/floor.png', problem: expect.stringContaining('not a regular file') },
    ]);
  });
});
