// Output paths a model gives a tool stay inside the server's working directory (symlinks followed)
// unless the server runs with --allow-outside; `-` is never an output over MCP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { confineOutput } from '../../src/mcp/paths.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-paths-'));
const cwd = path.join(root, 'project');
fs.mkdirSync(path.join(cwd, 'assets'), { recursive: true });
fs.symlinkSync(os.tmpdir(), path.join(cwd, 'escape'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

it('accepts paths inside, refuses paths outside (also through a symlink) unless --allow-outside', () => {
  for (const inside of ['a.png', 'assets/', 'assets/new/deeper/x.png', path.join(cwd, 'b.png'), undefined]) {
    expect(confineOutput(inside, cwd, false)).toBe(inside);
  }
  for (const outside of ['../x.png', '/etc/passwd', 'escape/x.png', 'assets/../../x.png']) {
    expect(() => confineOutput(outside, cwd, false), outside).toThrow(/outside the server's working directory/);
    expect(confineOutput(outside, cwd, true)).toBe(outside);
  }
  expect(() => confineOutput('-', cwd, true)).toThrow(/stdout/);
});
