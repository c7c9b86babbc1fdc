// sharp (a native module) is loaded by a build only when it has post steps to run: planning and a
// dry run never load it, nor a build of a manifest without `post`. Each case is a fresh CLI process
// (the built dist/) whose every module load is recorded, as in test/imaging/lazy-sharp.test.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, TEST_PATH } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));
const PLAIN = 'defaults: { agent: icon-forge, out: assets/ }\nassets:\n  - { id: sword, prompt: a sword }\n';
const WITH_POST = PLAIN.replace('out: assets/ }', 'out: assets/, post: [{ resize: 64x64 }] }');

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock({ credits: 1000 });
});
afterAll(async () => {
  await mock.close();
});

/** Every file a `assetgen build <args>` of `manifest` loads (its own project and home). */
async function loadedBy(manifest: string, args: string[]): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-post-lazy-'));
  const file = path.join(dir, 'imports.txt');
  try {
    fs.writeFileSync(path.join(dir, 'assetgen.yaml'), manifest);
    const child = spawn(process.execPath, ['--require', recorder, BIN, 'build', ...args], {
      env: {
        PATH: TEST_PATH,
        HOME: dir,
        ASSETGEN_STATE_DIR: dir,
        RECORD_IMPORTS_TO: file,
        ASSETGEN_BASE_URL: mock.url,
        ASSETGEN_API_KEY: mock.apiKey,
      },
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child, 15_000);
    expect(result.code, result.stderr).toBe(0);
    return fs.readFileSync(file, 'utf8').split('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The sharp files a build loads. */
const sharpLoadedBy = async (manifest: string, args: string[]): Promise<string[]> =>
  (await loadedBy(manifest, args)).filter((url) => /\/node_modules\/(sharp|@img)\//.test(url));

describe('a build loads sharp only to run post steps', () => {
  it('planning loads none of the image code: only the facts it checks a manifest against', async () => {
    const SHEET = `${WITH_POST}  - { id: icons, sheet: { from: [sword], padding: 2 }, out: assets/icons.png }\n`;
    const imaging = (await loadedBy(SHEET, ['--dry-run'])).filter((url) => /\/dist\/imaging\//.test(url)).map((url) => path.basename(url));
    expect([...new Set(imaging)].sort()).toEqual(['errors.js', 'limits.js', 'post-steps.js']);
  });

  it('a dry run (with or without post) and a build without post load none of it', async () => {
    expect(await sharpLoadedBy(PLAIN, ['--dry-run'])).toEqual([]);
    expect(await sharpLoadedBy(WITH_POST, ['--dry-run'])).toEqual([]);
    expect(await sharpLoadedBy(PLAIN, [])).toEqual([]);
  });

  it('a build with post steps loads it', async () => {
    expect((await sharpLoadedBy(WITH_POST, [])).some((url) => url.includes('/node_modules/sharp/'))).toBe(true);
  });
});
