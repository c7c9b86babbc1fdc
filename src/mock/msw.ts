// The mock inside msw: one handler that turns a fetch Request into the mock's own request and its
// answer back into a Response. Requests outside the service's path spaces fall through untouched.
// msw is an optional peer dependency: loaded here, on the first `handlers`, and nowhere else, so the
// rest of `assetgen/mock` (startMockServer, createMockService) works where msw is not installed.
import { createRequire } from 'node:module';
import type * as Msw from 'msw';
import type { HttpHandler } from 'msw';
import { isStream, type MockRequest, type MockResponse } from './exchange.js';
import { type MockService } from './service.js';

/** What a missing msw turns into: the fix, named. */
export const MSW_MISSING =
  'createMockService().handlers needs msw, an optional peer dependency of assetgen: install it with `npm i -D msw`.';

let loaded: typeof Msw | undefined;

/**
 * msw, required on first use. Synchronous (`handlers` is a plain property): msw ships CommonJS for
 * require, and its setupServer recognises handlers by shape, so either build works with the other.
 */
function loadMsw(): typeof Msw {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('msw') as typeof Msw;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes("'msw'");
    if (missing) throw new Error(MSW_MISSING, { cause: error });
    throw error;
  }
  return loaded;
}

export function mswHandlers(service: MockService): HttpHandler[] {
  const { http } = loadMsw();
  return [
    // A predicate, not a path: msw's own path matching would throw on malformed percent-encoding,
    // which the service answers with a 400.
    http.all(always, async ({ request }) => {
      const response = await service.dispatch(fromFetch(request));
      return response && toFetch(response);
    }),
  ];
}

const always = (): boolean => true;

function fromFetch(request: Request): MockRequest {
  const url = new URL(request.url);
  let body: Promise<string> | undefined;
  return {
    method: request.method,
    origin: url.origin,
    path: url.pathname,
    header: (name) => request.headers.get(name) ?? undefined,
    text: () => (body ??= request.text()),
  };
}

function toFetch(response: MockResponse): Response {
  // A network error (msw's HttpResponse.error() is this same call).
  if (response.fault === 'reset') return Response.error();
  const headers = new Headers(response.headers);
  const { body } = response;
  if (isStream(body)) {
    const encoder = new TextEncoder();
    let stop: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        stop = body.start(
          (chunk) => controller.enqueue(encoder.encode(chunk)),
          () => controller.close(),
        );
      },
      cancel: () => stop?.(),
    });
    return new Response(stream, { status: response.status, headers });
  }
  const bytes = (typeof body === 'string' ? new TextEncoder().encode(body) : (body ?? new Uint8Array())) as Uint8Array<ArrayBuffer>;
  if (response.fault !== 'truncate') return new Response(bytes, { status: response.status, headers });
  // The whole length announced, half of it sent, then the connection fails.
  headers.set('content-length', String(bytes.length));
  const half = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2)));
      controller.error(new TypeError('The connection was cut off (injected fault).'));
    },
  });
  return new Response(half, { status: response.status, headers });
}
