// Everything a service or an MCP client sends is bounded (docs/cli.md "Limits"): the real CLI,
// spawned against hostile loopback servers that stream (they never hold the body they send), stops
// each flood at its limit with a clear error and its exit code, leaves nothing on disk, and stays
// within 150 MiB of memory, measured as the process's own peak RSS.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderPng } from '../../src/mock/media/png.js';
import { jsonError } from '../support/cli.js';
import { flood, json, type Handler, useScriptedService } from '../support/http.js';
import { runMeasured, spawnMeasured } from '../support/peak-rss.js';

const MiB = 2 ** 20;
const PEAK_RSS_MIB = 150;
/** The "1.5 GB-class" floods: never reached, each stops at its limit. */
const FLOOD_BYTES = 1.5 * 2 ** 30;
const PNG = renderPng('sprite-artist', 'limits');

const service = useScriptedService(runMeasured);
const { against } = service;

const filesIn = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

/** A generation whose asset is served by `asset`. */
function generation(asset: Handler): Handler {
  return (req, res, seen, index) => {
    if (seen.method === 'POST')
      return json(res, 201, {
        id: 'gen_limits1',
        status: 'succeeded',
        output: { url: '/files/gen_limits1.png', contentType: 'image/png' },
        credits: { charged: 10, remaining: 990 },
      });
    return asset(req, res, seen, index);
  };
}

describe('answers from the service', () => {
  it('a JSON answer that never ends: refused past 16 MiB, not retried, exit 1', async () => {
    let sent: Promise<number> | undefined;
    const result = await against(
      (_req, res) => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.write('{"id":"gen_flood","status":"succeeded","pad":"');
        sent = flood(res, 'a'.repeat(64 * 1024), FLOOD_BYTES);
      },
      ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/', '--json'],
    );
    expect(result.code, result.stderr).toBe(1);
    expect(jsonError(result)).toMatchObject({ code: 'response_too_large' });
    expect(jsonError(result).message).toMatch(/larger than the 16 MiB assetgen reads/);
    expect(result.stdout).toBe('');
    expect(service.server.requests).toHaveLength(1);
    expect(await sent).toBeLessThan(64 * MiB);
    expect(filesIn(service.home.cwd)).toEqual([]);
    expect(result.peakRssMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
  });

  it('an event-stream line that never ends: refused past 1 MiB, exit 1', async () => {
    let sent: Promise<number> | undefined;
    const result = await against(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: progress\ndata: ');
        sent = flood(res, 'a'.repeat(64 * 1024), FLOOD_BYTES);
      },
      ['generate', 'x', '-a', 'sprite-artist', '--stream', '-o', 'out/', '--json'],
      { ASSETGEN_SESSION: 'sess_limits' },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(jsonError(result)).toMatchObject({ code: 'response_too_large' });
    expect(jsonError(result).message).toMatch(/event-stream line is longer than the 1 MiB/);
    expect(service.server.requests).toHaveLength(1);
    expect(await sent).toBeLessThan(64 * MiB);
    expect(filesIn(service.home.cwd)).toEqual([]);
    expect(result.peakRssMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
  });
});

describe('downloads', () => {
  let bomb: Buffer;
  beforeAll(async () => {
    // 200 MiB of zeros, gzipped chunk by chunk (about 200 KB): the test never holds the 200 MiB.
    const gzip = zlib.createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (part: Buffer) => parts.push(part));
    const zeros = Buffer.alloc(MiB);
    for (let i = 0; i < 200; i++) if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
    await new Promise((resolve) => {
      gzip.once('end', resolve);
      gzip.end();
    });
    bomb = Buffer.concat(parts);
  });

  it('a gzip bomb (200 KB that decodes to 200 MiB): stopped at the compression-ratio cap, nothing saved, exit 1', async () => {
    expect(bomb.length).toBeLessThan(300_000);
    const result = await against(
      generation((_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': bomb.length });
        res.end(bomb);
      }),
      ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/bomb.png', '--json'],
    );
    expect(result.code, result.stderr).toBe(1);
    expect(jsonError(result)).toMatchObject({ code: 'response_too_large' });
    expect(jsonError(result).message).toMatch(/decodes to more than 100 times its compressed size/);
    expect(filesIn(path.join(service.home.cwd, 'out'))).toEqual([]);
    expect(result.peakRssMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
  });

  for (const [announced, sent] of [
    [10, PNG.length],
    [2 * MiB, 3 * MiB],
  ] as const) {
    it(`a body longer than its Content-Length (${announced} announced, ${sent} sent) is refused, not cut: nothing saved, exit 1`, async () => {
      const body = Buffer.alloc(sent, 7);
      PNG.copy(body);
      const result = await against(
        generation((_req, res) => {
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': announced });
          // One write: the bytes past the announced end arrive with the body.
          res.end(body);
        }),
        ['generate', 'x', '-a', 'sprite-artist', '-o', 'out/long.png', '--json'],
      );
      expect(result.code, result.stderr).toBe(1);
      expect(jsonError(result).message).toMatch(/more bytes than the answer announced/);
      expect(filesIn(path.join(service.home.cwd, 'out'))).toEqual([]);
      expect(result.peakRssMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
    });
  }
});

it('a 50 MB manifest is refused before it is read: exit 2, within the memory bound', async () => {
  const file = path.join(service.home.cwd, 'assetgen.yaml');
  const block = '  - id: a\n    prompt: a rusty sword\n    agent: sprite-artist\n    out: assets/\n'.repeat(1000);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'assets:\n');
  while (fs.fstatSync(fd).size < 50_000_000) fs.writeSync(fd, block);
  fs.closeSync(fd);
  const result = await runMeasured(['build', '--dry-run', '--mock'], { env: service.home.env, cwd: service.home.cwd });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(/assetgen\.yaml is \d+ bytes; a manifest may be at most 8388608 bytes \(8 MiB\)/);
  expect(result.peakRssMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
});

it('templates that would expand to 2 GB (a 100 KB var 10 times in a prompt, a 2,000-entry matrix) are refused before expanding: exit 2, the limit named', async () => {
  const values = Array.from({ length: 2000 }, (_, index) => index).join(', ');
  const prompt = Array.from({ length: 10 }, () => '${big}').join(' ');
  const manifest = `vars:\n  big: ${'x'.repeat(100_000)}\ndefaults: { agent: icon-forge, out: assets/ }\nassets:\n  - id: item-\${n}\n    prompt: ${prompt}\n    matrix: { n: [${values}] }\n`;
  fs.writeFileSync(path.join(service.home.cwd, 'assetgen.yaml'), manifest);
  // Never expanded, so it is quick as well as small: the memory bound is what is asserted.
  const result = await runMeasured(['build', '--dry-run', '--mock'], { env: service.home.env, cwd: service.home.cwd });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(
    'assetgen.yaml:6:13: assets[0].prompt: expands to 1000009 characters, past the 65536 one text may have once its templates are expanded',
  );
  expect(result.peakRssMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
});

it('assetgen mcp: a 12 MiB message gets an error answer and a line on stderr; the next request is served', async () => {
  const { child, peakRssMiB } = spawnMeasured(['mcp'], { env: service.home.env, cwd: service.home.cwd });
  const answers = new Map<number, Record<string, any>>();
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const answered = (id: number) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${id} within 15 s; stderr:\n${stderr}`)), 15_000);
      const check = (): void => {
        if (!answers.has(id)) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(answers.get(id)!);
      };
      child.stdout!.on('data', check);
      check();
    });
  child.stdout!.prependListener('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (let index = stdout.indexOf('\n'); index !== -1; index = stdout.indexOf('\n')) {
      const message = JSON.parse(stdout.slice(0, index)) as Record<string, any>;
      if (typeof message.id === 'number') answers.set(message.id, message);
      stdout = stdout.slice(index + 1);
    }
  });
  const write = (text: string): Promise<void> =>
    new Promise((resolve) => (child.stdin!.write(text) ? resolve() : child.stdin!.once('drain', resolve)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  await write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
  );
  await answered(1);
  await write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  // 12 MiB of prompt, written a piece at a time: the test holds one piece, not the message.
  await write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"generate_image","arguments":{"prompt":"');
  const piece = 'p'.repeat(MiB);
  for (let i = 0; i < 12; i++) await write(piece);
  await write('"}}}\n');
  await write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);

  const refused = await answered(2);
  expect(refused.error).toMatchObject({ code: -32600 });
  expect(refused.error.message).toMatch(/The message is \d+ bytes; assetgen mcp reads at most 4 MiB per message/);
  const listed = await answered(3);
  expect(listed.result.tools.length).toBeGreaterThan(0);
  child.stdin!.end();
  expect(await exited, stderr).toBe(0);
  expect(stderr).toMatch(/warning: assetgen mcp refused a message longer than 4 MiB \(skipping it; still serving\)/);
  expect(peakRssMiB()).toBeLessThanOrEqual(PEAK_RSS_MIB);
});
