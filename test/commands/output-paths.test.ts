// Where -o puts things, checked before anything is paid for.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ config: { videoPollAfterMs: 20 } });
const cli = project.run;
const charged = async () => (await project.ledger()).length;

describe('-o', () => {
  it('an existing folder given without a slash is a folder', async () => {
    fs.mkdirSync(path.join(project.cwd, 'assets', 'items'), { recursive: true });
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'assets/items']);
    expect(result.code).toBe(0);
    expect(path.dirname(result.stdout.trim())).toBe(path.join(project.cwd, 'assets', 'items'));
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
    expect(result.stdout.trim()).toBe(path.join(project.cwd, 'gem.png'));
    expect(result.stderr).toContain('saving it as gem.png, not .jpg');
    expect(fs.existsSync(path.join(project.cwd, 'gem.jpg'))).toBe(false);
    const video = await cli(['video', 'create', 'torch', '--yes', '-o', 'torch.mp4', '--interval', '20ms']);
    expect(video.code).toBe(0);
    expect(video.stdout.trim()).toBe(path.join(project.cwd, 'torch.gif'));
  });

  it('--force replaces only regular files', async () => {
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', '/dev/null', '--force']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a regular file');
    expect(await charged()).toBe(0);
  });

  it('an existing file without --force is refused before paying, with one wording', async () => {
    fs.writeFileSync(path.join(project.cwd, 'gem.png'), 'mine');
    const result = await cli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'gem.png']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('already exists');
    expect(result.stderr).toContain('Pass --force to overwrite it');
    expect(fs.readFileSync(path.join(project.cwd, 'gem.png'), 'utf8')).toBe('mine');
    expect(await charged()).toBe(0);
  });
});
