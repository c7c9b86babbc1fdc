// The bash completion script's `--agent` in an interactive bash (test/commands/completion.test.ts
// has the rest): never bash's fallback to file names, cached ids or not. In the slow tier: it drives
// bash, and the CLI it runs, on a pseudo-terminal.
import fs from 'node:fs';
import path from 'node:path';
import pty from '@lydell/node-pty';
import { describe, expect, it } from 'vitest';
import { useCompletionSetup } from '../support/completion.js';

const completion = useCompletionSetup();

describe('bash completion', () => {
  it('never offers file names for --agent in an interactive bash, cached ids or not', async () => {
    fs.writeFileSync(path.join(completion.home.cwd, 'sprite-notes.png'), 'not an agent');
    /** What an interactive bash shows after `line` and `tabs` Tab presses. */
    const typed = async (line: string, tabs: string): Promise<string> => {
      const shell = pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
        cols: 200,
        rows: 30,
        cwd: completion.home.cwd,
        env: { ...completion.env, PS1: '$ ', TERM: 'dumb' } as Record<string, string>,
      });
      let screen = '';
      shell.onData((data) => (screen += data));
      const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
      const timer = setTimeout(() => shell.kill(), 10_000);
      const settle = async (minimum: number): Promise<void> => {
        for (let waited = 0, length = -1; waited < 5_000 && (screen.length !== length || waited < minimum); waited += 100) {
          length = screen.length;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      shell.write(`source '${completion.script}'; echo sourced\r`);
      for (let waited = 0; waited < 5_000 && !/\nsourced/.test(screen); waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      shell.write(`${line}${tabs}`);
      // Completing `--agent` runs `assetgen` once: the screen settles when it has answered.
      await settle(700);
      shell.write('\x15exit\r'); // Ctrl-U: the typed line goes; then leave
      await exited;
      clearTimeout(timer);
      return screen.slice(screen.lastIndexOf(line));
    };
    // Nothing cached: Tab Tab offers nothing (bash would otherwise list the files).
    expect(await typed('assetgen generate x --agent spr', '\t\t')).not.toContain('sprite-notes.png');
    completion.writeCache([{ id: 'sprite-artist', kind: 'image' }]);
    const withCache = await typed('assetgen generate x --agent spr', '\t');
    expect(withCache).toContain('sprite-artist');
    expect(withCache).not.toContain('sprite-notes.png');
    fs.rmSync(completion.cacheFile());
    // Elsewhere a value is a path: the shell still completes files there.
    expect(await typed('assetgen generate x -o spr', '\t')).toContain('sprite-notes.png');
  });
});
