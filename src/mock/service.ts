// One mock service: its state, the credentials issued at creation, and its msw handlers.
import type { HttpHandler } from 'msw';
import { createHandlers } from './handlers.js';
import { MockState } from './state.js';

export interface MockService {
  state: MockState;
  handlers: HttpHandler[];
  apiKey: string;
  sessionCookie: string;
}

export function createMockService(options: { credits?: number; seed?: string | number } = {}): MockService {
  const state = new MockState(options);
  return { state, handlers: createHandlers(state), apiKey: state.issueApiKey(), sessionCookie: state.issueSession() };
}
