// Files the user names for assetgen's own outputs: `takes --contact-sheet <file.png>` (and the
// `.json` layout it writes beside it) and `report -o <file.html>`. A file there that assetgen did
// not write is never replaced without --force (exit 2, nothing written, the file named with the
// way out); the sheet or report assetgen wrote there before is replaced, as a re-run does; the
// default places keep replacing what is there.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const MANIFEST = `defaults: { agent: sprite-artist }
assets:
  - id: bat
    prompt: a bat enemy
    variants: 2
    out: assets/bat.png
`;

const project = useMockProject({ files: { 'assetgen.yaml': MANIFEST } });
const { run } = project;
const inProject = (...parts: string[]): string => path.join(project.cwd, ...parts);
const read = (file: string): string => fs.readFileSync(inProject(file), 'utf8');
const write = (file: string, text: string): void => {
  fs.mkdirSync(path.dirname(inProject(file)), { recursive: true });
  fs.writeFileSync(inProject(file), text);
};

beforeEach(async () => {
  const built = await run(['build', '--mock', '--yes']);
  expect(built.code, built.stderr).toBe(0);
});

describe('takes --contact-sheet <file.png>', () => {
  it('refuses a PNG and a layout file assetgen did not write: exit 2, both left as they were', async () => {
    write('mine.png', 'precious\n');
    write('mine.json', 'precious\n');
    const result = await run(['takes', 'bat', '--contact-sheet', 'mine.png']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('mine.png');
    expect(result.stderr).toContain('mine.json');
    expect(result.stderr).toContain('--force');
    expect(result.stderr).toContain('--contact-sheet');
    expect(read('mine.png')).toBe('precious\n');
    expect(read('mine.json')).toBe('precious\n');
  });

  it('refuses the layout file alone (the PNG not there yet), writing neither', async () => {
    write('sheets/mine.json', '{"mine": true}\n');
    const result = await run(['takes', 'bat', '--contact-sheet', 'sheets/mine.png', '--json']);
    expect(result.code).toBe(2);
    expect(jsonError(result)).toMatchObject({ exitCode: 2, message: expect.stringContaining(path.join('sheets', 'mine.json')) });
    expect(jsonError(result).message).not.toContain('mine.png already');
    expect(read('sheets/mine.json')).toBe('{"mine": true}\n');
    expect(fs.existsSync(inProject('sheets', 'mine.png'))).toBe(false);
  });

  it('refuses a PNG alone (no layout beside it to say assetgen wrote it)', async () => {
    write('mine.png', 'precious\n');
    const result = await run(['takes', 'bat', '--contact-sheet', 'mine.png']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mine.png');
    expect(read('mine.png')).toBe('precious\n');
    expect(fs.existsSync(inProject('mine.json'))).toBe(false);
  });

  it('replaces its own sheet and layout on a re-run; a PNG put in place of its sheet is refused', async () => {
    const first = await run(['takes', 'bat', '--contact-sheet', 'mine.png', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(parseJson(first).contactSheet).toMatchObject({ file: inProject('mine.png'), layout: inProject('mine.json') });
    const again = await run(['takes', 'bat', '--contact-sheet', 'mine.png', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(read('mine.json'))).toMatchObject({ asset: 'bat', image: 'mine.png' });

    // Another picture under the sheet's name, its layout still assetgen's: the picture is not the sheet.
    write('mine.png', 'precious\n');
    const refused = await run(['takes', 'bat', '--contact-sheet', 'mine.png']);
    expect(refused.code).toBe(2);
    expect(read('mine.png')).toBe('precious\n');
  });

  it('--force replaces both', async () => {
    write('mine.png', 'precious\n');
    write('mine.json', 'precious\n');
    const result = await run(['takes', 'bat', '--contact-sheet', 'mine.png', '--force', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(inProject('mine.png')).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(JSON.parse(read('mine.json'))).toMatchObject({ asset: 'bat', image: 'mine.png' });
  });

  it('the default place (.assetgen/takes/<id>.png) is replaced as before', async () => {
    write('.assetgen/takes/bat.png', 'stale\n');
    write('.assetgen/takes/bat.json', 'stale\n');
    const result = await run(['takes', 'bat', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(read('.assetgen/takes/bat.json'))).toMatchObject({ asset: 'bat', image: 'bat.png' });
  });
});

describe('report -o <file.html>', () => {
  it('refuses a file assetgen did not write: exit 2, the file left as it was', async () => {
    write('my.html', 'precious\n');
    const result = await run(['report', '-o', 'my.html']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('my.html');
    expect(result.stderr).toContain('--force');
    expect(result.stderr).toContain('-o');
    expect(read('my.html')).toBe('precious\n');

    const json = await run(['report', '-o', 'my.html', '--json']);
    expect(json.code).toBe(2);
    expect(jsonError(json)).toMatchObject({ exitCode: 2, message: expect.stringContaining('my.html') });
    expect(read('my.html')).toBe('precious\n');
  });

  it('replaces its own report on a re-run, and anything with --force', async () => {
    const first = await run(['report', '-o', 'my.html']);
    expect(first.code, first.stderr).toBe(0);
    const again = await run(['report', '-o', 'my.html']);
    expect(again.code, again.stderr).toBe(0);
    expect(read('my.html')).toContain('<meta name="generator" content="assetgen">');

    write('my.html', '<!doctype html><p>mine</p>\n');
    expect((await run(['report', '-o', 'my.html'])).code).toBe(2);
    const forced = await run(['report', '-o', 'my.html', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(read('my.html')).toContain('<meta name="generator" content="assetgen">');
  });

  it('the default report next to the manifest is replaced as before', async () => {
    write('assetgen-report.html', 'stale\n');
    const result = await run(['report']);
    expect(result.code, result.stderr).toBe(0);
    expect(read('assetgen-report.html')).toContain('<meta name="generator" content="assetgen">');
  });
});
