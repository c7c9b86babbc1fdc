// `assetgen build --report <file.html>` never replaces a file assetgen did not write: like `report
// -o` and `takes --contact-sheet`, such a file is exit 2 (`usage`) before anything is paid for —
// and on build nothing overrides it (its --force pays to regenerate), so the hint says to remove
// the file or choose another path. A gallery assetgen wrote is replaced, as before. The real
// command table (in process) against the bundled mock.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const MANIFEST = [
  'defaults: { agent: sprite-artist }',
  'assets:',
  '  - id: sword',
  '    prompt: rusty sword icon',
  '    out: assets/sword.png',
  '',
].join('\n');
const FOREIGN = '<!doctype html>\n<html><head><title>My notes</title></head><body>not a gallery</body></html>\n';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
beforeAll(async () => {
  mock = await startMock({ credits: 10_000 });
});
afterAll(() => mock.close());
beforeEach(async () => {
  await mock.reset();
  await mock.config({ faults: { rate: 0 } });
  home = tempHome();
  fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), MANIFEST);
  fs.writeFileSync(path.join(home.cwd, 'notes.html'), FOREIGN);
});
afterEach(() => home.remove());

const cli = (args: string[]) =>
  runInProcess(args, { env: { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey }, cwd: home.cwd });
const notes = () => fs.readFileSync(path.join(home.cwd, 'notes.html'), 'utf8');

describe('assetgen build --report over a file assetgen did not write', () => {
  it('is refused, exit 2 (usage), before any paid call: with --force too, and with --dry-run', async () => {
    for (const args of [
      ['build', '--yes', '--report', 'notes.html', '--json'],
      ['build', '--yes', '--force', '--report', 'notes.html', '--json'],
      ['build', '--dry-run', '--report', 'notes.html', '--json'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      const error = jsonError(result);
      expect(error).toMatchObject({ code: 'usage', exitCode: 2 });
      expect(error.message).toBe(
        'notes.html already exists and is not a gallery assetgen wrote (no assetgen generator tag in its <head>).',
      );
      expect(error.hint).toMatch(/^Remove it, or choose another path with --report <file\.html>/);
      expect(notes()).toBe(FOREIGN);
    }
    expect((await mock.state()).ledger).toEqual([]);
    expect(fs.existsSync(path.join(home.cwd, 'assets', 'sword.png'))).toBe(false);
  });

  it('says so on stderr as an error line, then how to go on', async () => {
    const result = await cli(['build', '--yes', '--report', 'notes.html']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      'error: notes.html already exists and is not a gallery assetgen wrote (no assetgen generator tag in its <head>).',
      'Remove it, or choose another path with --report <file.html> (--force does not replace it: on build, it pays to regenerate assets).',
    ]);
    expect(notes()).toBe(FOREIGN);
    expect((await mock.state()).ledger).toEqual([]);
  });

  it('a gallery assetgen wrote there (report -o, an earlier build --report) is replaced', async () => {
    const written = await cli(['report', '-o', 'gallery.html']);
    expect(written.code, written.stderr).toBe(0);
    const before = fs.readFileSync(path.join(home.cwd, 'gallery.html'), 'utf8');
    const built = await cli(['build', '--yes', '--report', 'gallery.html', '--json']);
    expect(built.code, built.stderr).toBe(0);
    expect(parseJson(built).report).toBe(path.join(home.cwd, 'gallery.html'));
    expect(fs.readFileSync(path.join(home.cwd, 'gallery.html'), 'utf8')).not.toBe(before);
    expect((await mock.state()).ledger.length).toBeGreaterThan(0);
    const again = await cli(['build', '--report', 'gallery.html']);
    expect(again.code, again.stderr).toBe(0);
  });
});
