// THE mock harness of every suite: the real bundled mock on an ephemeral loopback port, with small
// helpers for its admin API and for calling it by hand.
import { Agent, fetch as undiciFetch } from 'undici';
import { startMockServer, type MockServer } from '../../src/mock/index.js';

/**
 * The harness's calls each on a connection of their own (undici: pipelining 0 keeps none alive).
 * A kept connection left idle past the mock's keep-alive timeout, as a test busy computing on a
 * loaded machine leaves it, is closed by the mock just as the next call is sent on it: ECONNRESET.
 */
const oneConnectionPerCall = new Agent({ pipelining: 0 });
const fetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  undiciFetch(url, { ...init, dispatcher: oneConnectionPerCall });

export interface MockState {
  credits: number;
  ledger: { amount: number; reason: string; at: string; idempotencyKey?: string }[];
  [key: string]: any;
}

export interface MockHandle {
  server: MockServer;
  url: string;
  apiKey: string;
  sessionCookie: string;
  /** Aliases used by the mock's own tests. */
  key: string;
  cookie: string;
  /** Calls the mock with a key (default), a session, no credentials, or the given headers. */
  call(
    method: string,
    path: string,
    options?: {
      auth?: 'key' | 'session' | 'none' | Record<string, string>;
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
    },
  ): Promise<{ status: number; headers: Headers; json: any; text: string }>;
  state(): Promise<MockState>;
  /** POST /__mock/config; throws on anything but 2xx. */
  config(settings: Record<string, unknown>): Promise<any>;
  reset(): Promise<void>;
  /**
   * Calls to these endpoints (names of ENDPOINTS) wait at the mock until `hold([])`, before
   * anything happens to them (`hold` in /__mock/config): what a test does "while the call is out"
   * then happens while it is, however slow the machine.
   */
  hold(endpoints: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startMock(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockHandle> {
  const server = await startMockServer(options);
  return {
    server,
    url: server.url,
    apiKey: server.apiKey,
    sessionCookie: server.sessionCookie,
    key: server.apiKey,
    cookie: server.sessionCookie,
    async call(method, path, options = {}) {
      const auth = options.auth ?? 'key';
      const headers: Record<string, string> = { ...options.headers };
      if (auth === 'key') headers.authorization = `Bearer ${server.apiKey}`;
      else if (auth === 'session') headers.cookie = server.sessionCookie;
      else if (typeof auth === 'object') Object.assign(headers, auth);
      let body: string | undefined = options.raw;
      if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const response = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, json, text };
    },
    async state() {
      return (await (await fetch(`${server.url}/__mock/state`)).json()) as MockState;
    },
    async config(settings) {
      const response = await fetch(`${server.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(settings),
      });
      if (!response.ok) throw new Error(`mock config failed: ${response.status} ${await response.text()}`);
      return response.json();
    },
    async reset() {
      await fetch(`${server.url}/__mock/reset`, { method: 'POST' });
    },
    async hold(endpoints) {
      await this.config({ hold: endpoints });
    },

    close: () => server.close(),
  } as MockHandle;
}

/** The JSON error shape every 4xx/5xx of the mock has. */
export function expectErrorShape(json: any, code?: string): void {
  if (!json || typeof json.error !== 'object' || typeof json.error.code !== 'string' || typeof json.error.message !== 'string') {
    throw new Error(`not the error shape: ${JSON.stringify(json)}`);
  }
  if (code && json.error.code !== code) throw new Error(`expected code ${code}, got ${json.error.code}: ${json.error.message}`);
}
