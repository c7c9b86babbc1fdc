// One mock service: its state, the credentials issued at creation, and `dispatch`, the answer to a
// request. Transports (server.ts for sockets, msw.ts in-process) are thin adapters over it.
import { type Dispatch } from './exchange.js';
import { createRoutes } from './handlers.js';
import { createRouter } from './router.js';
import { MockState, type MockStateOptions } from './state.js';

export interface MockService {
  state: MockState;
  dispatch: Dispatch;
  apiKey: string;
  sessionCookie: string;
}

export function createService(options: MockStateOptions = {}): MockService {
  const state = new MockState(options);
  return {
    state,
    dispatch: createRouter(createRoutes(state)),
    apiKey: state.credentials.issueApiKey(),
    sessionCookie: state.credentials.issueSession(),
  };
}
