// The service's public interface as the service document lists it: nine endpoints, their paths and
// which credentials each accepts. The client and the mock both read this table, so a path is
// written down exactly once.

export type AuthKind = 'apiKey' | 'session';

export interface EndpointSpec {
  readonly method: 'GET' | 'POST';
  /** Path template; `:name` segments are filled by `endpointPath`. */
  readonly path: string;
  /** Credentials the endpoint accepts, in the order a client should prefer them. */
  readonly auth: readonly AuthKind[];
  /**
   * The call spends credits on every attempt that reaches the service: it gets one Idempotency-Key
   * per logical call, reused across retries. (Polls and lists may also cost credits when
   * authenticated with a key; they are safe to repeat, so they are not marked.)
   */
  readonly paid: boolean;
}

export const ENDPOINTS = {
  generate: { method: 'POST', path: '/api/v1/generate', auth: ['apiKey'], paid: true },
  listWorkflows: { method: 'GET', path: '/api/v1/workflows', auth: ['apiKey', 'session'], paid: false },
  runWorkflow: { method: 'POST', path: '/api/v1/workflows/:id/run', auth: ['apiKey', 'session'], paid: true },
  getRun: { method: 'GET', path: '/api/v1/runs/:runId', auth: ['apiKey', 'session'], paid: false },
  createVideo: { method: 'POST', path: '/api/v1/video', auth: ['apiKey', 'session'], paid: true },
  getVideo: { method: 'GET', path: '/api/v1/video/:id', auth: ['apiKey', 'session'], paid: false },
  stream: { method: 'POST', path: '/api/ai/stream', auth: ['session'], paid: true },
  sessionGenerate: { method: 'POST', path: '/api/ai/generate', auth: ['session'], paid: true },
  listAgents: { method: 'GET', path: '/api/ai/agents', auth: ['session'], paid: false },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointName = keyof typeof ENDPOINTS;

/** Fills `:name` segments of an endpoint path, URL-encoding each value. */
export function endpointPath(name: EndpointName, params: Record<string, string> = {}): string {
  return ENDPOINTS[name].path.replace(/:([A-Za-z]+)/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`endpointPath(${name}): missing :${key}`);
    return encodeURIComponent(value);
  });
}

/**
 * Name of the session cookie the session endpoints read. The service document leaves it unnamed;
 * this is the name the bundled mock uses, and the client sends a bare cookie value under it.
 */
export const SESSION_COOKIE_NAME = 'ag_session';

/** Video jobs cost this much at submission (service document, section 8). */
export const VIDEO_JOB_COST = 180;

/**
 * What assetgen accepts as an id from the service (runs, video jobs, generations): anything else is
 * refused before it reaches a terminal, a file name, the journal or a printed command.
 */
export const SAFE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
