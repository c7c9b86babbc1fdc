// The mock inside msw: one handler that turns a fetch Request into the mock's own request and its
// answer back into a Response. Requests outside the service's path spaces fall through untouched.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { isStream, type MockRequest, type MockResponse } from './exchange.js';
import { type MockService } from './service.js';

export function mswHandlers(service: MockService): HttpHandler[] {
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
  if (response.fault === 'reset') return HttpResponse.error();
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
