// `assetgen mock`: one JSON line, a server that answers, a clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempHome } from '../e2e/harness.js';

describe('assetgen mock', () => {
  it('prints exactly one JSON line, serves the API, and stops on SIGTERM', async () => {
    const home = tempHome();
    const child = spawn(process.execPath, [BIN, 'mock', '--json', '--port', '0', '--credits', '77'], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no JSON line within 10 s: ${out}`)), 10_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) {
            clearTimeout(timer);
            resolve(out);
          }
        });
      });
      expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true);
      const info = JSON.parse(line) as { url: string; apiKey: string; sessionCookie: string };
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.sessionCookie).toMatch(/^ag_session=/);
      const response = await fetch(`${info.url}/api/v1/workflows`, { headers: { authorization: `Bearer ${info.apiKey}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-credits-remaining')).toBe('76');
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
      home.remove();
    }
  });

  it('rejects a bad port with exit 2', async () => {
    const home = tempHome();
    try {
      const result = await runCli(['mock', '--port', 'banana'], { env: home.env, cwd: home.cwd });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--port');
    } finally {
      home.remove();
    }
  });
});
