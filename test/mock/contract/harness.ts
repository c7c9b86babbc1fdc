// The shared set-up of the contract tests (test/mock/contract/*.test.ts, one file per topic of
// docs/mock-server.md): the real bundled mock on a loopback port per file, reset before each test,
// with quick video polls and stream steps so no test waits on the mock's clock.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startMock, type MockHandle } from '../../support/mock.js';

/** A generation request the seeded mock accepts. */
export const GENERATE = { agentId: 'sprite-artist', prompt: 'rusty sword' };

/** Every POST endpoint that takes a JSON body, with the credential it takes. */
export const POST_ENDPOINTS: [string, 'key' | 'session'][] = [
  ['/api/v1/generate', 'key'],
  ['/api/ai/generate', 'session'],
  ['/api/ai/stream', 'session'],
  ['/api/v1/video', 'key'],
  ['/api/v1/workflows/wf_tileset/run', 'key'],
];

/**
 * Starts the mock for this file (beforeAll), resets it before each test and closes it after. The
 * handle it returns reaches the running mock, so tests use it as they would the mock's own handle.
 */
export function useContractMock(): MockHandle {
  let started: MockHandle | undefined;
  const current = (): MockHandle => {
    if (!started) throw new Error('the mock is started in beforeAll: use it inside a hook or a test');
    return started;
  };
  beforeAll(async () => {
    started = await startMock({ seed: 'contract' });
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(async () => {
    await current().reset();
    await current().config({ videoPollAfterMs: 0, streamStepMs: 1 });
  });
  return {
    get server() {
      return current().server;
    },
    get url() {
      return current().url;
    },
    get apiKey() {
      return current().apiKey;
    },
    get sessionCookie() {
      return current().sessionCookie;
    },
    get key() {
      return current().key;
    },
    get cookie() {
      return current().cookie;
    },
    call: (method, path, options) => current().call(method, path, options),
    state: () => current().state(),
    config: (settings) => current().config(settings),
    reset: () => current().reset(),
    hold: (endpoints) => current().hold(endpoints),
    close: () => current().close(),
  };
}
