// docs/mock-server.md "Authentication": which credential each of the nine endpoints takes, the
// 401s for missing, malformed, unknown and revoked ones (never charged), and how keys are kept.
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointPath, type EndpointName } from '../../../src/api/endpoints.js';
import { API_KEY_PREFIX } from '../../../src/mock/index.js';
import { MockState } from '../../../src/mock/state.js';
import { expectErrorShape } from '../../support/mock.js';
import { GENERATE, useContractMock } from './harness.js';

const mock = useContractMock();

const bodies: Record<EndpointName, unknown> = {
  generate: GENERATE,
  sessionGenerate: GENERATE,
  stream: GENERATE,
  listAgents: undefined,
  listWorkflows: undefined,
  runWorkflow: {},
  getRun: undefined,
  createVideo: { prompt: 'torch' },
  getVideo: undefined,
};

async function pathFor(name: EndpointName): Promise<string> {
  if (name === 'runWorkflow') return endpointPath(name, { id: 'wf_sprite_sheet' });
  if (name === 'getRun')
    return endpointPath(name, { runId: (await mock.call('POST', endpointPath('runWorkflow', { id: 'wf_sprite_sheet' }))).json.id });
  if (name === 'getVideo')
    return endpointPath(name, { id: (await mock.call('POST', endpointPath('createVideo'), { body: { prompt: 'x' } })).json.id });
  return endpointPath(name);
}

describe('authentication of all nine endpoints', () => {
  const issueKey = async (): Promise<string> =>
    ((await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string }).apiKey;
  const revokeKey = async (apiKey: string): Promise<void> => {
    const response = await fetch(`${mock.url}/__mock/keys/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey }),
    });
    expect(response.status).toBe(200);
  };

  for (const [name, spec] of Object.entries(ENDPOINTS) as [EndpointName, (typeof ENDPOINTS)[EndpointName]][]) {
    const takesKey = (spec.auth as readonly string[]).includes('apiKey');
    const takesSession = (spec.auth as readonly string[]).includes('session');
    it(`${spec.method} ${spec.path} accepts ${spec.auth.join(' or ')} and refuses missing, malformed, unknown and revoked credentials with 401`, async () => {
      const path = await pathFor(name);
      const revoked = await issueKey();
      await revokeKey(revoked);
      const ledgerBefore = (await mock.state()).ledger.length;
      const attempt = (auth: 'key' | 'session' | 'none' | Record<string, string>) =>
        mock.call(spec.method, path, { auth, body: bodies[name] });

      const missing = await attempt('none');
      expect(missing.status).toBe(401);
      expectErrorShape(missing.json, 'unauthorized');
      expect(missing.headers.get('content-type')).toMatch(/^application\/json/);

      // With a key in the Authorization header: refused as a bad credential where keys are taken,
      // as "session required" where they are not.
      const keyCode = takesKey ? 'invalid_credentials' : 'session_required';
      const badKeys: [string, string][] = [
        ['malformed: not Bearer', 'Basic YWxhZGRpbjpvcGVu'],
        ['malformed: wrong prefix', 'Bearer sk_live_0123456789abcdef0123456789'],
        ['malformed: too short', `Bearer ${API_KEY_PREFIX}abc`],
        ['malformed: empty', 'Bearer '],
        ['unknown', `Bearer ${API_KEY_PREFIX}${'0'.repeat(40)}`],
        ['revoked', `Bearer ${revoked}`],
      ];
      for (const [what, authorization] of badKeys) {
        const result = await attempt({ authorization });
        expect(result.status, what).toBe(401);
        expectErrorShape(result.json, keyCode);
        if (takesKey && what === 'revoked') expect(result.json.error.message).toMatch(/revoked/);
      }
      // With a cookie: refused as a bad session where sessions are taken; a key-only endpoint
      // does not look at cookies at all.
      for (const cookie of ['ag_session=nope', 'ag_session=', 'other=1; ag_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
        const result = await attempt({ cookie });
        expect(result.status, cookie).toBe(401);
        expectErrorShape(result.json, takesSession ? 'invalid_credentials' : 'unauthorized');
        if (!takesSession) expect(result.json.error.message).toMatch(/API key/);
      }
      // No refusal charged anything.
      expect((await mock.state()).ledger).toHaveLength(ledgerBefore);

      if (takesKey) {
        expect((await attempt('key')).status).toBeLessThan(300);
      } else {
        const keyOnly = await attempt('key');
        expect(keyOnly.status).toBe(401);
        expectErrorShape(keyOnly.json, 'session_required');
      }
      if (takesSession) expect((await attempt('session')).status).toBeLessThan(300);
      else {
        const sessionOnly = await attempt('session');
        expect(sessionOnly.status).toBe(401);
        expectErrorShape(sessionOnly.json, 'unauthorized');
      }
    });
  }

  it('a key works until it is revoked, and stays revoked after a reset', async () => {
    const apiKey = await issueKey();
    const withKey = { authorization: `Bearer ${apiKey}` };
    expect((await mock.call('GET', '/api/v1/workflows', { auth: withKey })).status).toBe(200);
    await revokeKey(apiKey);
    const refused = await mock.call('GET', '/api/v1/workflows', { auth: withKey });
    expect(refused.status).toBe(401);
    expectErrorShape(refused.json, 'invalid_credentials');
    await mock.reset();
    expect((await mock.call('GET', '/api/v1/workflows', { auth: withKey })).status).toBe(401);
    const unknown = await fetch(`${mock.url}/__mock/keys/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: `${API_KEY_PREFIX}${'f'.repeat(40)}` }),
    });
    expect(unknown.status).toBe(404);
    expectErrorShape(await unknown.json(), 'not_found');
  });
});

describe('API keys', () => {
  it('start with the fixed prefix, are shown once and stored only as hashes', async () => {
    expect(mock.key.startsWith(API_KEY_PREFIX)).toBe(true);
    const { apiKey } = (await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string };
    expect(apiKey.startsWith(API_KEY_PREFIX)).toBe(true);
    const everything = JSON.stringify(await mock.state()) + JSON.stringify(mock.server.service.state);
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(mock.key);
  });

  it('are checked by hash: right key accepted, a one-character change refused', () => {
    const state = new MockState();
    const key = state.credentials.issueApiKey();
    expect(state.credentials.checkApiKey(key)).toMatchObject({ kind: 'apiKey' });
    expect(state.credentials.checkApiKey(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`)).toBe('unknown');
    expect(state.credentials.checkApiKey('sk_live_something_else_entirely')).toBe('malformed');
  });
});
