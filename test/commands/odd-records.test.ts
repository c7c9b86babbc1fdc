// One odd record never fails a whole list: a workflow whose id assetgen will not use (it would reach
// file names and printed commands) is left out and named, the rest are listed — in human output
// (a warning on stderr), in --json (`skipped`), over MCP and in the SDK.
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';
import { FAST, json, KEY, startServer, type TestServer } from '../support/http.js';
import { startMcp } from '../support/mcp.js';

const GOOD = { id: 'wf_good', name: 'Good', nodes: [{ id: 'character', type: 'prompt', overridable: true }] };
const ODD_IDS = ['wf with spaces', 'wf_$(touch pwned)', `wf_${'x'.repeat(200)}`, '', 'wf_\u001b]0;owned\u0007'];
const WORKFLOWS = [
  GOOD,
  ...ODD_IDS.map((id) => ({ id, name: 'Odd', nodes: [] })),
  'just a string',
  { name: 'no id' },
  { ...GOOD, id: 'wf_also_good' },
];
const AGENTS = [{ id: 'sprite-artist', kind: 'image' }, 'bare-agent', { name: 'no id' }, 7];

let server: TestServer;
let home: ReturnType<typeof tempHome>;
beforeAll(async () => {
  server = await startServer((_req, res, seen) =>
    seen.url.startsWith('/api/ai/agents') ? json(res, 200, { agents: AGENTS }) : json(res, 200, { workflows: WORKFLOWS }),
  );
});
afterAll(() => server.close());
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const env = () => ({ ...home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: KEY, ASSETGEN_SESSION: 'ag_session=s' });
const cli = (args: string[]) => runInProcess(args, { env: env(), cwd: home.cwd });
const EXPECTED_SKIPPED = [
  ...ODD_IDS.map((id) => ({ id: id ? id.slice(0, 200) : null, why: id ? expect.stringContaining('does not accept') : 'has no id' })),
  { id: null, why: 'not a JSON object' },
  { id: null, why: 'has no id' },
];

describe('workflows list with odd records', () => {
  it('--json: lists the good ones and names each skipped one with why', async () => {
    const result = await cli(['workflows', 'list', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    expect(document.workflows.map((workflow: { id: string }) => workflow.id)).toEqual(['wf_good', 'wf_also_good']);
    expect(document.skipped).toEqual(EXPECTED_SKIPPED);
  });

  it('human: the table of the good ones on stdout, one warning per odd one on stderr, terminal-safe', async () => {
    const result = await cli(['workflows', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/wf_good/);
    expect(result.stdout).toMatch(/wf_also_good/);
    expect(result.stdout).not.toMatch(/Odd|pwned/);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: skipped the workflow'));
    expect(warnings).toHaveLength(EXPECTED_SKIPPED.length);
    expect(warnings[0]).toBe(
      'warning: skipped the workflow "wf with spaces": has an id assetgen does not accept (1 to 128 letters, digits, _ . : - only).',
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for exactly these bytes
    expect(result.stderr).not.toMatch(/[\u001b\u0007]/);
  });

  it('the SDK: the good records, with `skipped` beside them', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: KEY, sessionCookie: 's', ...FAST });
    try {
      const workflows = await client.listWorkflows();
      expect(workflows.map((workflow) => workflow.id)).toEqual(['wf_good', 'wf_also_good']);
      expect(workflows.skipped).toEqual(EXPECTED_SKIPPED);
      const agents = await client.listAgents();
      expect(agents.map((agent) => agent.id)).toEqual(['sprite-artist', 'bare-agent']);
      expect(agents.skipped).toEqual([
        { id: null, why: 'has no id' },
        { id: null, why: 'not a JSON object' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('agents: the same, in --json and on stderr', async () => {
    const json = await cli(['agents', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(parseJson(json).skipped).toHaveLength(2);
    const human = await cli(['agents']);
    expect(human.stdout).toContain('bare-agent');
    expect(human.stderr.match(/^warning: skipped the agent/gm)).toHaveLength(2);
  });

  it('MCP list_workflows: the good ones and `skipped`', async () => {
    const mcp = await startMcp({ env: env(), cwd: home.cwd });
    try {
      const listed = await mcp.call('list_workflows');
      expect(listed.result.isError, JSON.stringify(listed.json)).toBeFalsy();
      expect(listed.json.workflows.map((workflow: { id: string }) => workflow.id)).toEqual(['wf_good', 'wf_also_good']);
      expect(listed.json.skipped).toEqual(EXPECTED_SKIPPED);
    } finally {
      await mcp.close();
    }
  });
});
