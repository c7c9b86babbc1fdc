// The project commands keep V8's young generation from growing (src/heap.ts,
// docs/imaging.md "Memory"): the real CLI planning 2,000 assets, its main thread's young generation
// measured when it exits (a preload reads V8's heap statistics). Without the setting, that plan
// grew it to 16 MiB; with it, it stays at the 4 it had when the project was opened.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson, runCli, tempHome } from '../support/cli.js';

const ASSETS = 2000;

/** Whether this node's V8 takes a growth factor of 1 at run time (versions that hold it at 2 or more ignore it, as documented). */
function factorTakesEffect(): boolean {
  const probe = `
    const v8 = require('node:v8');
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    const kept = [];
    for (let i = 0; i < 1e6; i++) kept.push({ i });
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size / 2 ** 20, kept.length);`;
  const result = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  return Number(result.stdout.split(' ')[0]) <= 2;
}

describe('the young generation of a large plan', () => {
  const home = tempHome();
  afterAll(() => home.remove());

  it.runIf(factorTakesEffect())(
    `a dry run of ${ASSETS.toLocaleString('en')} assets keeps it at a few MiB (on a V8 that takes the setting)`,
    async () => {
      const lines = ['defaults: { agent: icon-forge, out: assets/ }', 'assets:'];
      for (let i = 0; i < ASSETS; i++) lines.push(`  - { id: a${String(i).padStart(4, '0')}, prompt: icon number ${i} }`);
      fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), `${lines.join('\n')}\n`);
      const report = path.join(home.home, 'young.txt');
      const preload = path.join(home.home, 'young.cjs');
      fs.writeFileSync(
        preload,
        `process.on('exit', () => {
          if (!require('node:worker_threads').isMainThread) return;
          const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
          require('node:fs').writeFileSync(${JSON.stringify(report)}, String(space.space_size / 2 ** 20));
        });`,
      );
      const result = await runCli(['build', '--dry-run', '--json', '--mock'], {
        env: { ...home.env, NODE_OPTIONS: `--require ${preload}` },
        cwd: home.cwd,
      });
      expect(result.code, result.stderr).toBe(0);
      expect((parseJson(result).items as unknown[]).length).toBe(ASSETS);
      expect(Number(fs.readFileSync(report, 'utf8'))).toBeLessThanOrEqual(4);
    },
  );
});
