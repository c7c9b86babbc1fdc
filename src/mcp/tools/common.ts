// What the tools share: annotations that tell the truth about each kind of tool, and the schema
// parts several tools take.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { MAX_TAKES } from '../../api/takes.cjs';
import { z } from '../sdk.js';

/** Lists and lookups that change nothing (on the service or on disk). */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Calls that may spend credits and write files; a retry without the same idempotency key pays again. */
export const PAID: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** Waiting for a job already paid for: polls (a key's poll may cost a credit) and saves its files. */
export const FOLLOW: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** The local job journal only: nothing leaves the machine. */
export const LOCAL: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * Writes in the project only, no service call, no credits: picking a take remakes the output from
 * it, and the output before is itself a take, picked back as easily (so not destructive).
 */
export const LOCAL_EDIT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Default wait of a call before it answers "still running" (MCP clients often time out at 60 s). */
export const DEFAULT_WAIT_SECONDS = 45;

export const overwrite = z
  .boolean()
  .optional()
  .describe('Replace an existing file (default false: an existing file is an error, checked before paying).');

export const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Reuse the key a failed call reported (idempotencyKey) to get its result without paying twice, if the service honours Idempotency-Key (its document does not promise it; the bundled mock does).',
  );

export const maxWaitSeconds = z
  .number()
  .int()
  .min(1)
  .max(3600)
  .optional()
  .describe(`Answer with the job id and how to resume after this long instead of waiting on (default ${DEFAULT_WAIT_SECONDS}).`);

export const waitBudget = (seconds: number | undefined): number => (seconds ?? DEFAULT_WAIT_SECONDS) * 1000;

/** A number of takes (generate_image `variants`, build `more`): each one a paid call. */
export const takeCount = (description: string) => z.number().int().min(1).max(MAX_TAKES).optional().describe(description);
