// A download that takes more than a moment says how far it is: bytes, total and rate (on a terminal
// one line in place; on a pipe only with --verbose, as calm plain lines). A quick one says nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/cli/transfer.js';
import { renderPng } from '../../src/mock/media/png.js';
import { runInProcess, tempHome } from '../support/cli.js';
import { json, startServer, type TestServer } from '../support/http.js';

const PNG = renderPng('sprite-artist', 'slow');
let home: ReturnType<typeof tempHome>;
let server: TestServer;

beforeEach(async () => {
  home = tempHome();
  // The asset arrives in 10 pieces over ~1 s; the generation record is answered at once.
  server = await startServer((_req, res, seen) => {
    if (seen.method === 'POST')
      return json(res, 201, { id: 'gen_slow1', status: 'succeeded', output: { url: '/files/gen_slow1.png', contentType: 'image/png' } });
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
    const piece = Math.ceil(PNG.length / 10);
    let sent = 0;
    const timer = setInterval(() => {
      res.write(PNG.subarray(sent, sent + piece));
      sent += piece;
      if (sent >= PNG.length) {
        clearInterval(timer);
        res.end();
      }
    }, 100);
  });
});
afterEach(async () => {
  await server.close();
  home.remove();
});

const generate = (extra: string[]) =>
  runInProcess(['generate', 'x', '-a', 'sprite-artist', '-o', 'out/', ...extra], {
    env: { ...home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: `agk_${'a'.repeat(40)}` },
    cwd: home.cwd,
  });

describe('download progress', () => {
  it('with --verbose on a pipe: bytes, total and rate once the transfer takes a moment', async () => {
    const result = await generate(['--verbose']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('Downloading gen_slow1.png:'));
    const total = formatBytes(PNG.length).replace('.', '\\.');
    expect(lines[0]).toMatch(new RegExp(`^Downloading gen_slow1\\.png: [\\d.]+ k?B of ${total} \\(\\d+%\\), [\\d.]+ k?B/s$`));
    // Calm in a log: one line, not one per chunk (the next would come 2 s later).
    expect(lines).toHaveLength(1);
  });

  it('says nothing on a pipe without --verbose', async () => {
    const result = await generate([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('Downloading gen_slow1.png:');
  });
});
