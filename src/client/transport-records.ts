// What travels between the client (http.ts) and a transport (transport.ts, transport-pooled.ts):
// one request on the wire and its answer. Declarations only, in a file of their own: the transports
// import these, not each other (test/unit/source-rules.test.ts keeps src/ free of import circles).
import type { Readable } from 'node:stream';
import type { HeaderMap } from './values.js';

export interface WireRequest {
  method: 'GET' | 'POST';
  url: string;
  /** Made for this request: the transport may add to it (Content-Length). */
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** From sending until the status line and headers are in. */
  headersTimeoutMs: number;
  /** Longest silence between body chunks; 0 for none (streams, downloads). */
  bodyTimeoutMs: number;
}

export interface WireResponse {
  status: number;
  headers: HeaderMap;
  body: Readable;
}

export interface Transport {
  send(request: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}
