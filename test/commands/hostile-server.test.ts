// A service that lies, attacks the terminal or floods: ids and messages with escape sequences and
// shell syntax, 20 MB errors, encoded bodies, sizes that do not match what was announced. The CLI
// refuses or sanitises, saves nothing it cannot vouch for, and never hangs.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderPng } from '../../src/mock/media/png.js';
import { jsonError, runInProcess } from '../support/cli.js';
import { json, type Handler, useScriptedService } from '../support/http.js';

const PNG = renderPng('sprite-artist', 'hostile');
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for exactly these bytes
const ESC = /[\u001b\u0007\u009b]/;

const service = useScriptedService(runInProcess);
const { against } = service;

const filesIn = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

/** A generation whose asset is served by `asset`. */
function generation(asset: Handler, output: Record<string, unknown> = {}): Handler {
  return (req, res, seen, index) => {
    if (seen.method === 'POST')
      return json(res, 201, {
        id: 'gen_hostile1',
        status: 'succeeded',
        output: { url: '/files/gen_hostile1.png', contentType: 'image/png', ...output },
        credits: { charged: 10, remaining: 990 },
      });
    return asset(req, res, seen, index);
  };
}

describe('ids and text from the service', () => {
  for (const id of ['vid_$(touch pwned)', 'vid_\u001b]0;owned\u0007', 'vid_`id`', `vid_${'x'.repeat(200)}`]) {
    it(`refuses the job id ${JSON.stringify(id).slice(0, 30)} before printing or journalling it`, async () => {
      const result = await against(
        (_req, res) => json(res, 202, { id, status: 'queued', credits: { charged: 180, remaining: 820 } }),
        ['video', 'create', 'torch', '--yes', '--no-wait'],
      );
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(ESC);
      // Quoted as data ("Raw response: …") at most, never inside a command to paste.
      expect(result.stderr).not.toMatch(/^\s*(resume with: )?assetgen .*(\$\(|`)/m);
      expect(result.stderr).toMatch(/an id assetgen does not accept/);
      expect(fs.existsSync(path.join(service.home.cwd, 'pwned'))).toBe(false);
    });
  }

  it('sanitises an error message full of escape sequences (human and --json)', async () => {
    const message = 'Bad prompt\u001b[2J\u001b]0;owned\u0007 $(rm -rf ~)\u009b31m';
    const handler: Handler = (_req, res) => json(res, 400, { error: { code: 'invalid_request', message } });
    const human = await against(handler, ['generate', 'x', '-a', 'sprite-artist']);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('Bad prompt');
    expect(human.stderr).not.toMatch(ESC);
    await service.server.close();
    const machine = await against(handler, ['generate', 'x', '-a', 'sprite-artist', '--json']);
    expect(machine.stderr).not.toMatch(ESC);
    // The message is the service's words without their control bytes, the same for a program.
    expect(jsonError(machine).message).toBe('Bad prompt $(rm -rf ~)');
  });

  it('reads at most 64 KB of a 20 MB error and shows a short message', async () => {
    const huge = 'A'.repeat(20 * 1024 * 1024);
    const result = await against(
      (_req, res) => json(res, 400, { error: { code: 'invalid_request', message: huge } }),
      ['generate', 'x', '-a', 'sprite-artist', '--json'],
    );
    expect(result.code).toBe(1);
    expect(result.stderr.length).toBeLessThan(4_000);
  });
});

describe('downloads the service cannot vouch for', () => {
  it('decodes a gzip-encoded asset and saves the image itself', async () => {
    const gz = zlib.gzipSync(PNG);
    const result = await against(
      generation((_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': gz.length });
        res.end(gz);
      }),
      ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/'],
    );
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(path.join(service.home.cwd, 'out', 'gen_hostile1.png')).equals(PNG)).toBe(true);
  });

  it('refuses an encoding it cannot decode, and saves nothing', async () => {
    const result = await against(
      generation((_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'compress', 'content-length': PNG.length });
        res.end(PNG);
      }),
      ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/'],
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Content-Encoding "compress"/);
    expect(filesIn(path.join(service.home.cwd, 'out'))).toEqual([]);
  });

  it('refuses a body whose size differs from the output.bytes the service announced', async () => {
    const result = await against(
      generation(
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
          res.end(PNG);
        },
        { bytes: PNG.length + 100 },
      ),
      ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/', '--json'],
    );
    expect(result.code).toBe(1);
    expect(jsonError(result).message).toMatch(/announced/);
    expect(filesIn(path.join(service.home.cwd, 'out'))).toEqual([]);
  });

  it('a body shorter than its Content-Length is retried, then reported; no file and no temp file left', async () => {
    const result = await against(
      generation((req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
        res.write(PNG.subarray(0, 100), () => res.destroy());
      }),
      ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/'],
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/paid for and still available at/);
    expect(filesIn(path.join(service.home.cwd, 'out'))).toEqual([]);
    expect(service.server.requests.filter((seen) => seen.method === 'GET').length).toBeGreaterThan(1);
  });
});
