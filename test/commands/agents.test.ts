// `assetgen agents` with what a user usually has: only an API key. The list needs a session cookie;
// each list the service gives is cached, a key-only run answers from it (labelled, dated), and
// without one the error says exactly what to do. No agent id is ever made up.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/mock/index.js';
import { jsonError, parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject();
const cacheFile = () => path.join(project.home.env.ASSETGEN_CONFIG_DIR!, 'agents-cache.json');
const withSession = () => ({ ...project.env(), ASSETGEN_SESSION: project.mock.sessionCookie });
const ids = AGENTS.map((agent) => agent.id);

describe('assetgen agents', () => {
  it('with only a key and nothing cached: exit 4, no ids, and the way to get them', async () => {
    const result = await project.run(['agents', '--json']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    const error = jsonError(result);
    expect(error).toMatchObject({ code: 'missing_credentials', exitCode: 4 });
    expect(error.message).toContain('needs a session cookie');
    expect(error.hint).toContain('use an agent id the user gives you');
    expect(error.hint).toContain('assetgen auth login --session');
    expect(error.hint).toContain(cacheFile());
    for (const id of ids) expect(result.stderr).not.toContain(id);
  });

  it('with a session lists from the service and caches the list; a key-only run then answers from it, labelled', async () => {
    const listed = await project.run(['agents', '--json'], { env: withSession() });
    expect(listed.code, listed.stderr).toBe(0);
    expect(parseJson(listed)).toMatchObject({ source: 'service' });
    expect(parseJson(listed).agents.map((agent: { id: string }) => agent.id)).toEqual(ids);
    if (process.platform !== 'win32') expect(fs.statSync(cacheFile()).mode & 0o777).toBe(0o600);

    const cached = await project.run(['agents', '--json']);
    expect(cached.code, cached.stderr).toBe(0);
    const document = parseJson(cached);
    expect(document).toMatchObject({ source: 'cache', listedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), note: expect.any(String) });
    expect(document.agents).toEqual(AGENTS.map(({ id, kind, name }) => ({ id, kind, name })));

    const human = await project.run(['agents']);
    expect(human.stderr).toMatch(/warning: Cached list from .* only an API key is configured/);
    expect(human.stdout.split('\n')[0]).toBe('sprite-artist\timage\tSprite Artist\t');

    // Another service's cache is not this one's.
    const other = await project.run(['agents', '--json', '--base-url', `${project.mock.url}/elsewhere`]);
    expect(other.code).toBe(4);
  });

  it('keeps only ids of the safe form: completion hands them to a shell', async () => {
    fs.mkdirSync(path.dirname(cacheFile()), { recursive: true });
    const agents = [{ id: 'good-agent', kind: 'image' }, { id: '$(touch pwned)' }, { id: 'clip-maker', kind: 'video' }, { nope: 1 }];
    fs.writeFileSync(cacheFile(), JSON.stringify({ services: { [project.mock.url]: { listedAt: '2026-01-01T00:00:00.000Z', agents } } }));
    const result = await project.run(['agents', '--json']);
    expect(parseJson(result).agents.map((agent: { id: string }) => agent.id)).toEqual(['good-agent', 'clip-maker']);
    expect((await project.run(['completion', 'bash', '--agent-ids', 'image'])).stdout).toBe('good-agent\n');
    expect((await project.run(['completion', 'bash', '--agent-ids', 'video'])).stdout).toBe('clip-maker\n');
    // A cache that is not JSON reads as none.
    fs.writeFileSync(cacheFile(), '{');
    expect((await project.run(['agents', '--json'])).code).toBe(4);
    expect((await project.run(['completion', 'bash', '--agent-ids', 'image'])).stdout).toBe('');
  });
});
