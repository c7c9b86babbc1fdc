// The memory figure every bound is checked against is the CLI's own: a CLI spawned by a large test
// worker read the worker's size on Linux when it was getrusage's ru_maxrss (the kernel carries it
// across execve from the image the child was forked from), and failed 150 MiB bounds that way.
import { describe, expect, it } from 'vitest';
import { runMeasured } from '../support/peak-rss.js';
import { tempHome } from '../support/cli.js';

describe('the peak RSS of a spawned CLI', () => {
  it('is its own, not the image of the process that spawned it', async () => {
    const home = tempHome();
    // This worker holds 256 MiB resident (every page written) while it spawns the CLI.
    const held = Buffer.alloc(256 * 1024 * 1024, 1);
    try {
      const result = await runMeasured(['--version'], { env: home.env, cwd: home.cwd });
      expect(result.code).toBe(0);
      expect(held[held.length - 1]).toBe(1);
      expect(result.peakRssMiB).toBeGreaterThan(10);
      expect(result.peakRssMiB).toBeLessThan(200);
    } finally {
      home.remove();
    }
  });
});
