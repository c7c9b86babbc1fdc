// `assetgen video create --help` on a real terminal (test/e2e/startup.test.ts has the rest of
// start-up): the screen rendered at build time for its width, else commander's own wrapping. In the
// slow tier: it drives the CLI on a pseudo-terminal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_PATH } from '../support/cli.js';
import { spawnPty } from '../support/pty.js';

describe('start-up', () => {
  it('on a terminal, --help is the screen rendered for its width, or commander at a width it was not rendered for', async () => {
    const screens = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../dist/help-screens.json', import.meta.url)), 'utf8'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-pty-help-'));
    try {
      const env = { PATH: TEST_PATH, HOME: dir, ASSETGEN_STATE_DIR: dir, TERM: 'xterm-256color' };
      const screenOf = async (cols: number): Promise<string> => {
        const session = spawnPty(['video', 'create', '--help'], { env, cwd: dir, cols });
        expect(await session.exit).toBe(0);
        return session.output().replace(/\r\n/g, '\n');
      };
      const wide = screens['video create'];
      expect(await screenOf(wide.from)).toBe(wide.wide);
      // Not rendered at 100 columns: commander wraps the long descriptions itself.
      const narrow = await screenOf(100);
      expect(narrow).not.toBe(wide.wide);
      expect(narrow.split('\n').every((line: string) => line.length <= 100)).toBe(true);
      expect(narrow.replace(/\s+/g, ' ')).toBe(wide.wide.replace(/\s+/g, ' '));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
