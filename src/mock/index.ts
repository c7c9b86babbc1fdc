// `import { startMockServer, handlers } from 'assetgen/mock'`: the bundled mock of the service.
import { createMockService } from './service.js';

export { startMockServer, type MockServer, type StartMockServerOptions } from './server.js';
export { createMockService, type MockService } from './service.js';
export { API_KEY_PREFIX, SESSION_COOKIE_NAME, MAX_BODY_BYTES, DEFAULT_CREDITS } from './constants.js';
export { PRICES } from './prices.js';
export { AGENTS, WORKFLOWS } from './seed.js';
export type { MockConfig, LedgerEntry } from './state.js';

/**
 * A ready-made mock for msw setups: `setupServer(...handlers)`, then call the service with
 * `defaultMock.apiKey` or `defaultMock.sessionCookie`. Its state lives as long as the process.
 */
export const defaultMock = createMockService();
export const handlers = defaultMock.handlers;
