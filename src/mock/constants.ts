// Fixed facts of the mock's contract (docs/mock-server.md). One place each.

/** Every API key the mock issues starts with this prefix. */
export const API_KEY_PREFIX = 'agk_';
/** Name of the session cookie the session endpoints read: a fact of the interface, kept in api/. */
export { SESSION_COOKIE_NAME } from '../api/endpoints.js';
/** Request bodies larger than this get 413. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Prompts longer than this get 400 `prompt_too_long`. */
export const MAX_PROMPT_LENGTH = 2000;
/** The balance of the seeded account unless told otherwise. */
export const DEFAULT_CREDITS = 1000;
/** Where generated files are served (no auth, not charged). */
export const FILES_PATH = '/files';
/** Admin API prefix (mock only, no auth). */
export const ADMIN_PATH = '/__mock';

/** Every error code of the mock's HTTP error answers (docs/mock-server.md lists each; a test checks it). */
export const ERROR_CODES = [
  'idempotency_in_progress',
  'idempotency_key_reused',
  'insufficient_credits',
  'internal_error',
  'invalid_credentials',
  'invalid_json',
  'invalid_override',
  'invalid_request',
  'method_not_allowed',
  'not_found',
  'payload_too_large',
  'prompt_too_long',
  'rate_limited',
  'run_not_found',
  'session_required',
  'unauthorized',
  'unavailable',
  'unknown_agent',
  'video_not_found',
  'workflow_not_found',
  'wrong_agent_kind',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
