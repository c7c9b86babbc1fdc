// `import { startMockServer, createMockService } from 'assetgen/mock'`: the bundled mock of the service.
// Importing it creates nothing: a mock (its state, keys and handlers) exists once you ask for one.

export { startMockServer, type MockServer, type StartMockServerOptions } from './server.js';
export { createMockService, type MockService } from './service.js';
export { API_KEY_PREFIX, SESSION_COOKIE_NAME, MAX_BODY_BYTES, DEFAULT_CREDITS, ERROR_CODES, type ErrorCode } from './constants.js';
export { PRICES } from './prices.js';
export { AGENTS, WORKFLOWS } from './seed.js';
export type { MockConfig, LedgerEntry } from './state.js';
