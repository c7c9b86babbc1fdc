// `import { startMockServer, createMockService } from 'assetgen/mock'`: the bundled mock of the service.
// Importing it creates nothing: a mock (its state, keys and handlers) exists once you ask for one.
import type { HttpHandler } from 'msw';
import { mswHandlers } from './msw.js';
import { createService, type MockService } from './service.js';

export { startMockServer, type MockServer, type StartMockServerOptions } from './server.js';
export type { MockService } from './service.js';
export type { MockRequest, MockResponse, Dispatch } from './exchange.js';
export { API_KEY_PREFIX, SESSION_COOKIE_NAME, MAX_BODY_BYTES, DEFAULT_CREDITS, ERROR_CODES, type ErrorCode } from './constants.js';
export { PRICES } from './prices.js';
export { AGENTS, WORKFLOWS } from './seed.js';
export type { MockConfig, LedgerEntry } from './state.js';

/**
 * A mock with its own state, with msw request handlers for `setupServer(...service.handlers)`.
 * `handlers` loads msw (an optional peer dependency) when first read; without msw it throws an
 * error naming `npm i -D msw`, and the rest of the mock works.
 */
export function createMockService(
  options: { credits?: number; seed?: string | number } = {},
): MockService & { readonly handlers: HttpHandler[] } {
  const service = createService(options);
  let handlers: HttpHandler[] | undefined;
  return Object.defineProperty({ ...service }, 'handlers', {
    get: () => (handlers ??= mswHandlers(service)),
    enumerable: true,
  }) as MockService & { readonly handlers: HttpHandler[] };
}
