// Which route answers a request: a table of method + path pattern built once per mock, then one
// regular-expression test per route. What no route answers inside the service's own path spaces
// gets the service's 404/405/400; anything else is not the service's (msw lets it pass through).
import { ADMIN_PATH, FILES_PATH } from './constants.js';
import { type Dispatch, type MockRequest, type MockResponse } from './exchange.js';
import { apiError, newRequestId } from './responses.js';

export interface Route {
  method: 'GET' | 'POST';
  /** `/api/v1/runs/:runId` style; `:name` segments become params (percent-decoded). */
  path: string;
  handle(request: MockRequest, params: Record<string, string>): Promise<MockResponse>;
}

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

/** Only these path spaces are the service's: mounted in someone's msw setup, the mock leaves the rest alone. */
const SERVICE_SPACES = ['/api/', `${FILES_PATH}/`, `${ADMIN_PATH}/`];

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}/?$`), names };
}

export function createRouter(routes: Route[]): Dispatch {
  const table = routes.map(compile);
  return async (request) => {
    const { path, method } = request;
    if (!SERVICE_SPACES.some((space) => path.startsWith(space))) return undefined;
    const allowed: string[] = [];
    for (const route of table) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      try {
        route.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1] ?? '')));
      } catch {
        return malformedPath();
      }
      return route.handle(request, params);
    }
    try {
      decodeURIComponent(path);
    } catch {
      return malformedPath();
    }
    if (allowed.length)
      return apiError(
        405,
        'method_not_allowed',
        `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        newRequestId(),
        {},
        {
          allow: allowed.join(', '),
        },
      );
    return apiError(404, 'not_found', `No route ${method} ${path}.`, newRequestId());
  };
}

const malformedPath = (): MockResponse =>
  apiError(400, 'invalid_request', 'The request path has malformed percent-encoding.', newRequestId());
