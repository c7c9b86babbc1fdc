// Response helpers of the mock: JSON bodies, the error shape, request ids, and request parsing
// (bodies, prompts, cookies, credentials).
import { type AuthKind } from '../api/endpoints.js';
import { MAX_BODY_BYTES, MAX_PROMPT_LENGTH, SESSION_COOKIE_NAME, type ErrorCode } from './constants.js';
import { jsonResponse, type MockRequest, type MockResponse } from './exchange.js';
import { type MockState, type Principal } from './state.js';

// ── responses ────────────────────────────────────────────────────────────────────────────────────
export { newRequestId } from './ids.js';

export const json = jsonResponse;

export function apiError(
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): MockResponse {
  return json(status, { error: { code, message, requestId, ...extra } }, requestId, headers);
}

/** A validation failure, thrown from deep inside a handler and turned into a 4xx by the wrapper. */
export class Reject extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

// ── request parsing ──────────────────────────────────────────────────────────────────────────────
export async function readJsonObject(request: MockRequest, { optional = false } = {}): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new Reject(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { limit: MAX_BODY_BYTES });
  if (!text.trim()) {
    if (optional) return {};
    throw new Reject(400, 'invalid_request', 'The request body is empty; send a JSON object.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Reject(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Reject(400, 'invalid_request', 'The request body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

export function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw new Reject(400, 'invalid_request', `Missing field "${field}".`, { field });
  if (typeof value !== 'string') throw new Reject(400, 'invalid_request', `Field "${field}" must be a string.`, { field });
  if (!value.trim()) throw new Reject(400, 'invalid_request', `Field "${field}" must not be empty.`, { field });
  return value;
}

/** An optional field is either left out or a value: `null` is refused (400), never read as "the default". */
export function rejectNull(body: Record<string, unknown>, field: string): void {
  if (body[field] === null)
    throw new Reject(400, 'invalid_request', `Field "${field}" must not be null; leave it out for the default.`, { field });
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  rejectNull(body, field);
  return body[field] === undefined ? undefined : requiredString(body, field);
}

export function prompt(body: Record<string, unknown>): string {
  const value = requiredString(body, 'prompt');
  if (value.length > MAX_PROMPT_LENGTH)
    throw new Reject(400, 'prompt_too_long', `The prompt is longer than ${MAX_PROMPT_LENGTH} characters.`, { limit: MAX_PROMPT_LENGTH });
  return value;
}

function cookie(request: MockRequest, name: string): string | undefined {
  for (const part of (request.header('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The credentials of a request, checked against what the endpoint accepts. */
export function authenticate(state: MockState, request: MockRequest, accepted: readonly AuthKind[]): Principal {
  const authorization = request.header('authorization') ?? null;
  if (authorization !== null && accepted.includes('apiKey')) {
    const match = /^Bearer (\S+)$/.exec(authorization.trim());
    if (!match) throw new Reject(401, 'invalid_credentials', 'The Authorization header must be "Bearer <API key>".');
    const result = state.credentials.checkApiKey(match[1]);
    if (result === 'malformed') throw new Reject(401, 'invalid_credentials', 'That is not an API key of this service.');
    if (result === 'unknown') throw new Reject(401, 'invalid_credentials', 'Unknown API key.');
    if (result === 'revoked') throw new Reject(401, 'invalid_credentials', 'This API key has been revoked.');
    return result;
  }
  // Read only now: an API key, the common case, needs no cookie parsing.
  const session = cookie(request, SESSION_COOKIE_NAME);
  if (session !== undefined && accepted.includes('session')) {
    const result = state.credentials.checkSession(session);
    if (result === 'unknown') throw new Reject(401, 'invalid_credentials', 'Unknown or expired session.');
    return result;
  }
  if (!accepted.includes('apiKey') && authorization !== null) {
    throw new Reject(
      401,
      'session_required',
      `This endpoint needs a session cookie (${SESSION_COOKIE_NAME}); an API key is not accepted here.`,
    );
  }
  if (!accepted.includes('session'))
    throw new Reject(401, 'unauthorized', 'Send an API key (Authorization: Bearer <key>); a session cookie is not accepted here.');
  throw new Reject(
    401,
    'unauthorized',
    accepted.includes('apiKey')
      ? 'Send an API key (Authorization: Bearer <key>) or a session cookie.'
      : `Send the session cookie (${SESSION_COOKIE_NAME}).`,
  );
}
