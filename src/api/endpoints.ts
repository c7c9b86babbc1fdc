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
}

export const ENDPOINTS = {
  generate: { method: 'POST', path: '/api/v1/generate', auth: ['apiKey'] },
  listWorkflows: { method: 'GET', path: '/api/v1/workflows', auth: ['apiKey', 'session'] },
  runWorkflow: { method: 'POST', path: '/api/v1/workflows/:id/run', auth: ['apiKey', 'session'] },
  getRun: { method: 'GET', path: '/api/v1/runs/:runId', auth: ['apiKey', 'session'] },
  createVideo: { method: 'POST', path: '/api/v1/video', auth: ['apiKey', 'session'] },
  getVideo: { method: 'GET', path: '/api/v1/video/:id', auth: ['apiKey', 'session'] },
  stream: { method: 'POST', path: '/api/ai/stream', auth: ['session'] },
  sessionGenerate: { method: 'POST', path: '/api/ai/generate', auth: ['session'] },
  listAgents: { method: 'GET', path: '/api/ai/agents', auth: ['session'] },
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

/** Video jobs cost this much at submission (service document, section 8). */
export const VIDEO_JOB_COST = 180;
