// What no route answers: 404/405 for unknown paths and methods, 400 for malformed paths.
import { http, type HttpHandler } from 'msw';
import { ENDPOINTS } from '../api/endpoints.js';
import { ADMIN_PATH, FILES_PATH } from './constants.js';
import { apiError, newRequestId } from './responses.js';

function routeTable(): { method: string; pattern: RegExp }[] {
  const toRegex = (path: string): RegExp => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`);
  return [
    ...Object.values(ENDPOINTS).map((spec) => ({ method: spec.method, pattern: toRegex(spec.path) })),
    { method: 'GET', pattern: toRegex(`${FILES_PATH}/:name`) },
    { method: 'GET', pattern: toRegex(`${ADMIN_PATH}/state`) },
    ...['reset', 'config', 'keys', 'keys/revoke'].map((p) => ({ method: 'POST', pattern: toRegex(`${ADMIN_PATH}/${p}`) })),
  ];
}

export function fallbackHandlers(): HttpHandler[] {
  const table = routeTable();
  const fallback = ({ request }: { request: Request }): Response => {
    const requestId = newRequestId();
    const path = new URL(request.url).pathname;
    const allowed = table.filter((route) => route.pattern.test(path)).map((route) => route.method);
    if (allowed.length) {
      return apiError(
        405,
        'method_not_allowed',
        `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        requestId,
        {},
        { allow: allowed.join(', ') },
      );
    }
    return apiError(404, 'not_found', `No route ${request.method} ${path}.`, requestId);
  };
  // Only the service's own path spaces: mounted in someone's msw setup, the mock must not swallow
  // their other requests.
  return [http.all('*/api/*', fallback), http.all(`*${ADMIN_PATH}/*`, fallback), http.all(`*${FILES_PATH}/*`, fallback)];
}

/** Paths of the service's own path spaces that no route can decode: 400, not a 500 from msw's matcher. */
export function malformedPathHandler(): HttpHandler {
  const malformed = ({ request }: { request: Request }): boolean => {
    const path = new URL(request.url).pathname;
    if (!/\/(api|files|__mock)\//.test(path)) return false;
    try {
      decodeURIComponent(path);
      return false;
    } catch {
      return true;
    }
  };
  return http.all(malformed, () => apiError(400, 'invalid_request', 'The request path has malformed percent-encoding.', newRequestId()));
}

/** Every handler of the mock over one state, in match order. */
