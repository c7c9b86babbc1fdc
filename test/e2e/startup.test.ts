// `--help` and `--version` must stay fast: they load commander and nothing heavy.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from './harness.js';

const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));

function importsOf(args: string[]): string[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-imports-')), 'imports.txt');
  const result = spawnSync(process.execPath, ['--require', recorder, BIN, ...args], {
    env: { PATH: process.env.PATH, RECORD_IMPORTS_TO: file },
    encoding: 'utf8',
    timeout: 15_000,
  });
  expect(result.status).toBe(0);
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe('start-up', () => {
  for (const args of [['--help'], ['--version'], ['video', '--help']]) {
    it(`assetgen ${args.join(' ')} loads no heavy dependency`, () => {
      const imports = importsOf(args);
      // --version is answered before the command table is loaded; help needs commander only.
      expect(imports.some((url) => url.includes('/commander/'))).toBe(args[0] !== '--version');
      for (const heavy of ['undici', 'ora', '@inquirer', 'msw', 'chalk', 'conf', 'eventsource-parser']) {
        expect(imports.filter((url) => url.includes(`/node_modules/${heavy}/`))).toEqual([]);
      }
    });
  }
});
