// A real mock server on an ephemeral loopback port, and small request helpers for its tests.
import { startMockServer, type MockServer } from '../../src/mock/index.js';

export interface Harness {
  server: MockServer;
  url: string;
  key: string;
  cookie: string;
  /** Calls the mock with a key (default), a session, or no credentials. */
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
  state(): Promise<any>;
  config(settings: Record<string, unknown>): Promise<any>;
  reset(): Promise<void>;
}

export async function startHarness(options: { credits?: number; seed?: string } = {}): Promise<Harness> {
  const server = await startMockServer(options);
  const harness: Harness = {
    server,
    url: server.url,
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
      return (await fetch(`${server.url}/__mock/state`)).json();
    },
    async config(settings) {
      const response = await fetch(`${server.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(settings),
      });
      return response.json();
    },
    async reset() {
      await fetch(`${server.url}/__mock/reset`, { method: 'POST' });
    },
  };
  return harness;
}

/** The JSON error shape every 4xx/5xx of the mock has. */
export function expectErrorShape(json: any, code?: string): void {
  if (!json || typeof json.error !== 'object' || typeof json.error.code !== 'string' || typeof json.error.message !== 'string') {
    throw new Error(`not the error shape: ${JSON.stringify(json)}`);
  }
  if (code && json.error.code !== code) throw new Error(`expected code ${code}, got ${json.error.code}: ${json.error.message}`);
}
