// `assetgen mock` from the built CLI (bin/assetgen.js → dist): one JSON line, a server that
// answers, a clean stop on SIGTERM; usage errors exit 2.
import { describe, expect, it } from 'vitest';
import { collect, runCli, spawnCli, tempHome } from '../support/cli.js';
import { CAN_SIGNAL_CHILDREN, runsHere } from '../support/platform.js';

/** Resolves with stdout as soon as it holds a full line (bounded). */
function firstLine(child: ReturnType<typeof spawnCli>, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no line on stdout within ${timeoutMs} ms: ${out}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(out);
      }
    };
    child.stdout!.on('data', onData);
  });
}

/** Both runs end the mock with SIGTERM and check its clean exit (0). */
const endsBySigterm = runsHere(
  'assetgen mock ended by SIGTERM',
  CAN_SIGNAL_CHILDREN,
  'SIGTERM ends a child outright, not through its handler',
);

describe('assetgen mock', () => {
  it.runIf(endsBySigterm)('--json: exactly one JSON line {url, apiKey, sessionCookie}, serves the API, exits 0 on SIGTERM', async () => {
    const home = tempHome();
    const child = spawnCli(['mock', '--json', '--port', '0', '--credits', '77', '--seed', 's1'], { env: home.env, cwd: home.cwd });
    const done = collect(child, 20_000);
    try {
      const line = await firstLine(child);
      const info = JSON.parse(line) as Record<string, string>;
      expect(Object.keys(info).sort()).toEqual(['apiKey', 'sessionCookie', 'url']);
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.apiKey).toMatch(/^agk_[0-9a-f]{40}$/);
      expect(info.sessionCookie).toMatch(/^ag_session=[\w-]+$/);
      const workflows = await fetch(`${info.url}/api/v1/workflows`, { headers: { authorization: `Bearer ${info.apiKey}` } });
      expect(workflows.status).toBe(200);
      expect(workflows.headers.get('x-credits-remaining')).toBe('76');
      const agents = await fetch(`${info.url}/api/ai/agents`, { headers: { cookie: info.sessionCookie } });
      expect(agents.status).toBe(200);
      const state = (await (await fetch(`${info.url}/__mock/state`)).json()) as { credits: number };
      expect(state.credits).toBe(76);
      child.kill('SIGTERM');
      const result = await done;
      expect(result.code).toBe(0);
      // The whole of stdout is that one line.
      expect(result.stdout).toBe(line);
      expect(result.stdout.split('\n')).toHaveLength(2);
      // And the port is closed.
      await expect(fetch(`${info.url}/api/v1/workflows`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
      home.remove();
    }
  });

  it.runIf(endsBySigterm)('without --json: export lines on stdout, a note on stderr', async () => {
    const home = tempHome();
    const child = spawnCli(['mock'], { env: home.env, cwd: home.cwd });
    const done = collect(child, 20_000);
    try {
      const first = await firstLine(child);
      expect(first).toMatch(/^export ASSETGEN_BASE_URL='http:\/\/127\.0\.0\.1:\d+'\n/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGTERM');
      const result = await done;
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^export ASSETGEN_BASE_URL='.+'\nexport ASSETGEN_API_KEY='agk_[0-9a-f]{40}'\nexport ASSETGEN_SESSION='ag_session=.+'\n$/,
      );
      expect(result.stderr).toContain('/__mock/');
    } finally {
      child.kill('SIGKILL');
      home.remove();
    }
  });

  it('bad --port or --credits → exit 2, naming the flag, nothing on stdout', async () => {
    const home = tempHome();
    try {
      for (const [args, flag] of [
        [['--port', 'banana'], '--port'],
        [['--port', '70000'], '--port'],
        [['--port', '-1'], '--port'],
        [['--credits', 'lots'], '--credits'],
        [['--credits', '-5'], '--credits'],
      ] as const) {
        const result = await runCli(['mock', '--json', ...args], { env: home.env, cwd: home.cwd });
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toContain(flag);
        expect(result.stdout).toBe('');
      }
    } finally {
      home.remove();
    }
  });
});
