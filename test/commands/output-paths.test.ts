// Where -o puts things, checked before anything is paid for.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mock = await startMock({});
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
  await mock.config({ videoPollAfterMs: 20 });
  home = tempHome();
  env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
});
afterEach(() => home.remove());

const cli = (args: string[]) => runInProcess(args, { env, cwd: home.cwd });
const charged = async () => ((await mock.state()).ledger as unknown[]).length;

describe('-o', () => {
  it('an existing folder given without a slash is a folder', async () => {
    fs.mkdirSync(path.join(home.cwd, 'assets', 'items'), { recursive: true });
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'assets/items']);
    expect(result.code).toBe(0);
    expect(path.dirname(result.stdout.trim())).toBe(path.join(home.cwd, 'assets', 'items'));
    expect(path.extname(result.stdout.trim())).toBe('.png');
  });

  it('an extension of the other kind of asset is a usage error before paying', async () => {
    const image = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'gem.mp4']);
    expect(image.code).toBe(2);
    expect(image.stderr).toContain('names a video file');
    const video = await cli(['video', 'create', 'torch', '--yes', '-o', 'torch.png']);
    expect(video.code).toBe(2);
    expect(await charged()).toBe(0);
  });

  it('an extension that contradicts what the service sent is corrected, and said', async () => {
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'gem.jpg']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(path.join(home.cwd, 'gem.png'));
    expect(result.stderr).toContain('saving it as gem.png, not .jpg');
    expect(fs.existsSync(path.join(home.cwd, 'gem.jpg'))).toBe(false);
    const video = await cli(['video', 'create', 'torch', '--yes', '-o', 'torch.mp4', '--interval', '20ms']);
    expect(video.code).toBe(0);
    expect(video.stdout.trim()).toBe(path.join(home.cwd, 'torch.gif'));
  });

  it('--force replaces only regular files', async () => {
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', '/dev/null', '--force']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a regular file');
    expect(await charged()).toBe(0);
  });

  it('an existing file without --force is refused before paying, with one wording', async () => {
    fs.writeFileSync(path.join(home.cwd, 'gem.png'), 'mine');
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'gem.png']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('already exists');
    expect(result.stderr).toContain('Pass --force to overwrite it');
    expect(fs.readFileSync(path.join(home.cwd, 'gem.png'), 'utf8')).toBe('mine');
    expect(await charged()).toBe(0);
  });
});
