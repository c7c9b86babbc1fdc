// msw is an optional peer dependency: the built `assetgen/mock` loads and serves where msw cannot be
// resolved at all (dist/ copied into a temp folder with no node_modules above it), and only reading
// `handlers` fails, with the fix named.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-no-msw-'));
  fs.cpSync(DIST, path.join(dir, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('assetgen/mock without msw installed', () => {
  it('imports, starts a mock server that answers, and names `npm i -D msw` only when handlers are read', () => {
    const script = `
      const mock = await import('./dist/mock/index.js');
      const server = await mock.startMockServer({ port: 0 });
      const agents = await fetch(server.url + '/api/v1/workflows', { headers: { authorization: 'Bearer ' + server.apiKey } });
      await server.close();
      const service = mock.createMockService({ credits: 5 });
      let message = 'no error';
      try { service.handlers; } catch (error) { message = error.message; }
      console.log(JSON.stringify({ status: agents.status, credits: service.state.credits, message }));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 200,
      credits: 5,
      message: 'createMockService().handlers needs msw, an optional peer dependency of assetgen: install it with `npm i -D msw`.',
    });
  });
});
