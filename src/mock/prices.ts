// The mock's price table, in credits. The service document gives only the video price (180); the
// rest are the mock's plausible choices, documented in docs/mock-server.md.
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import type { AuthKind } from '../api/endpoints.js';

export const PRICES = {
  /** One image from /api/v1/generate, /api/ai/generate or /api/ai/stream. */
  generation: 10,
  /** Starting a workflow run, per node of the workflow. */
  runPerNode: 5,
  /** A video job, charged at submission. */
  video: VIDEO_JOB_COST,
  /** Any other call authenticated with an API key (list workflows, poll a run or a video job). */
  keyCall: 1,
  /** Any other call authenticated with a session. */
  sessionCall: 0,
} as const;

/** What a non-generating call costs with these credentials. */
export function callPrice(auth: AuthKind): number {
  return auth === 'apiKey' ? PRICES.keyCall : PRICES.sessionCall;
}
