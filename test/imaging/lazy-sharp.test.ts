// sharp (a native module) loads only when pixels are processed: validating a `post:` list, which
// every build does, loads none of it; applying the steps does. Run on the built dist/ in a fresh
// process whose every module load is recorded.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collect, TEST_PATH } from '../support/cli.js';
import { makePixels, toPng } from './pixels.js';

const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));
const dist = (file: string) => pathToFileURL(fileURLToPath(new URL(`../../dist/imaging/${file}`, import.meta.url))).href;

async function loadsOf(script: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-sharp-'));
  const file = path.join(dir, 'imports.txt');
  try {
    const child = spawn(process.execPath, ['--require', recorder, '--input-type=module', '-e', script], {
      env: { PATH: TEST_PATH, HOME: dir, RECORD_IMPORTS_TO: file },
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child, 15_000);
    expect(result.code, result.stderr).toBe(0);
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const sharpFiles = (loads: string[]) => loads.filter((url) => /\/node_modules\/(sharp|@img)\//.test(url));

describe('sharp is loaded on use', () => {
  it('parsing post steps and describing them loads no sharp', async () => {
    const loads = await loadsOf(
      `const { parsePostSteps, describePostSteps } = await import(${JSON.stringify(dist('post-steps.js'))});
       await import(${JSON.stringify(dist('errors.js'))});
       describePostSteps(parsePostSteps(['trim', { resize: '64x64' }, 'pot', { palette: 8 }]));`,
    );
    expect(loads.some((url) => url.includes('/dist/imaging/post-steps.js'))).toBe(true);
    expect(sharpFiles(loads)).toEqual([]);
  });

  it('applying them does, and its native binary', async () => {
    const png = (await toPng(makePixels(2, 2, () => [1, 2, 3, 255]))).toString('base64');
    const loads = await loadsOf(
      `const { applyPostSteps } = await import(${JSON.stringify(dist('post.js'))});
       const result = await applyPostSteps(Buffer.from('${png}', 'base64'), [{ kind: 'pot' }]);
       if (result.width !== 2) process.exit(3);`,
    );
    expect(sharpFiles(loads).some((url) => url.includes('/node_modules/sharp/'))).toBe(true);
    expect(sharpFiles(loads).some((url) => url.endsWith('.node'))).toBe(true);
  });
});
