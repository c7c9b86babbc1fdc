// `assetgen mcp --mock` driven by the MCP Inspector's CLI mode (@modelcontextprotocol/inspector-cli,
// the package the Inspector runs for `--cli`): tools/list and tools/call, as a user would check a server.
// The full @modelcontextprotocol/inspector needs Node 22.7+; its CLI package runs on Node 20. Version
// 1.0.3 finds its own package.json by a path relative to the working directory (`../package.json`),
// so it runs here from a folder whose parent has one.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, collect, tempHome } from '../support/cli.js';

const require = createRequire(import.meta.url);
const INSPECTOR = path.join(path.dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'cli.js');

let home: ReturnType<typeof tempHome>;
beforeAll(() => {
  home = tempHome();
  fs.writeFileSync(path.join(home.home, 'package.json'), '{}\n');
});
afterAll(() => home.remove());

async function inspect(args: string[]): Promise<any> {
  const child = spawn(process.execPath, [INSPECTOR, '--cli', process.execPath, BIN, 'mcp', '--mock', ...args], {
    cwd: home.cwd,
    env: home.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = await collect(child, 30_000);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

it('tools/list shows every tool with its schema', async () => {
  const listed = await inspect(['--method', 'tools/list']);
  const names = listed.tools.map((tool: any) => tool.name);
  expect(names).toEqual(expect.arrayContaining(['generate_image', 'run_workflow', 'create_video', 'wait_video', 'list_jobs']));
  expect(listed.tools.find((tool: any) => tool.name === 'generate_image').inputSchema.required).toEqual(['prompt', 'agent']);
});

it('tools/call generate_image saves a PNG; create_video without confirmation is a tool error', async () => {
  const generated = await inspect([
    '--method',
    'tools/call',
    '--tool-name',
    'generate_image',
    '--tool-arg',
    'prompt=rusty sword',
    '--tool-arg',
    'agent=sprite-artist',
    '--tool-arg',
    'output=icons/',
  ]);
  const document = JSON.parse(generated.content[0].text);
  expect(fs.readFileSync(document.path).subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(generated.content.find((item: any) => item.type === 'image')).toBeDefined();
  const refused = await inspect(['--method', 'tools/call', '--tool-name', 'create_video', '--tool-arg', 'prompt=torch']);
  expect(refused.isError).toBe(true);
  expect(JSON.parse(refused.content[0].text).error.hint).toContain('confirm_credits');
});
