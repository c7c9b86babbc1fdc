// The wire itself: stdout carries nothing but JSON-RPC messages (logs go to stderr), `--mock`
// brings its own in-process service, and the server exits 0 when the client closes its stdin.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, collect, tempHome } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeAll(() => {
  home = tempHome();
});
afterAll(() => home.remove());

it('assetgen mcp --mock: only protocol messages on stdout, a saved image, exit 0 at the end of stdin', async () => {
  // Not spawnCli: it ends stdin at once, and this client keeps it open until it is done.
  const server = spawn(process.execPath, [BIN, 'mcp', '--mock'], { env: home.env, cwd: home.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const done = collect(server, 20_000);
  const lines: string[] = [];
  let buffer = '';
  const answered = new Promise<void>((resolve) => {
    server.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let index: number;
      while ((index = buffer.indexOf('\n')) >= 0) {
        lines.push(buffer.slice(0, index));
        buffer = buffer.slice(index + 1);
        if (lines.some((line) => line.includes('"id":2'))) resolve();
      }
    });
  });
  const send = (message: unknown): void => void server.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'generate_image', arguments: { prompt: 'gold coin', agent: 'icon-forge', output: 'coin.png' } },
  });
  await answered;
  server.stdin!.end();
  const result = await done;
  expect(result.code, result.stderr).toBe(0);
  for (const line of result.stdout.split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  const reply = JSON.parse(lines.find((line) => line.includes('"id":2'))!);
  const document = JSON.parse(reply.result.content[0].text);
  expect(document).toMatchObject({ mock: true, credits: { charged: 10 } });
  expect(fs.readFileSync(`${home.cwd}/coin.png`).subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(result.stderr).toContain('Using the bundled mock service');
});

it('without credentials: tool errors that say how to log in (exit code 4 as in --json), and local tools still work', async () => {
  const { startMcp } = await import('../support/mcp.js');
  const session = await startMcp({ env: home.env, cwd: home.cwd });
  try {
    const refused = await session.call('list_workflows');
    expect(refused.result.isError).toBe(true);
    expect(refused.json.error).toMatchObject({
      code: 'missing_credentials',
      exitCode: 4,
      hint: expect.stringContaining('assetgen auth login'),
    });
    const jobs = await session.call('list_jobs');
    expect(jobs.result.isError).toBeFalsy();
    expect(jobs.json.jobs).toEqual([]);
    expect(session.stderr()).toContain('assetgen MCP server');
  } finally {
    await session.close();
  }
});
