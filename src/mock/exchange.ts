// The mock's own request and response: plain objects, so the endpoint logic runs the same behind a
// node:http socket (server.ts) and inside msw (msw.ts) without building a fetch Request and
// Response for every call — that alone cost more than the endpoint's own work.

export interface MockRequest {
  readonly method: string;
  /** `scheme://host[:port]` the client addressed (file URLs in answers are built on it). */
  readonly origin: string;
  /** The path as sent (percent-encoding intact), without the query. */
  readonly path: string;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** The body as text (may be called more than once). */
  text(): Promise<string>;
}

/** A body produced over time (server-sent events). */
export interface StreamBody {
  /** Starts producing; the function it returns stops production (the client went away). */
  start(write: (chunk: string) => void, end: () => void): () => void;
}

export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body?: string | Uint8Array | StreamBody;
  /** A connection fault the transport acts out: hang up without an answer, or halfway through it. */
  fault?: 'reset' | 'truncate';
  /** For streams: receives the whole text once the stream ended or was cut off (idempotent replay). */
  onStreamSettled?: (text: string) => void;
}

export const isStream = (body: MockResponse['body']): body is StreamBody => typeof body === 'object' && body !== null && 'start' in body;

export function jsonResponse(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): MockResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers }, body: JSON.stringify(body) };
}

/** The service's answer for a request: undefined when the path is not the service's at all. */
export type Dispatch = (request: MockRequest) => Promise<MockResponse | undefined>;
